/**
 * The MUI controls under `root` (the inputs, checkboxes, switches, autocompletes, selects and buttons the scaffolder's
 * default widgets draw), by class name; the scaffolder's own frame around a field (a MUI FormControl) is not one.
 */
export const muiControls = (root: ParentNode = document) =>
  [
    ...root.querySelectorAll(
      '.MuiInputBase-root, .MuiCheckbox-root, .MuiSwitch-root, .MuiAutocomplete-root, .MuiButtonBase-root, .MuiSelect-root',
    ),
  ].map(e => e.className);
