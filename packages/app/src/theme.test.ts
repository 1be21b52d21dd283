/* eslint-disable no-restricted-imports -- the test reads the CSS files from disk: it runs in Node, not a browser */
/* eslint-disable @backstage/no-deprecated-bui-tokens -- BUI 0.18's Button still reads these tokens (theme.css) */
import { readFileSync } from 'fs';
import { dirname, join } from 'path';
/* eslint-enable no-restricted-imports */

/** The light theme's value of a BUI token: the app's override where it sets one, else BUI's own. */
function lightToken(name: string): string {
  // Jest maps .css modules to a stub: read BUI's file from its package (dist/index.* beside dist/css/).
  const bui = readFileSync(
    join(dirname(require.resolve('@backstage/ui')), 'css', 'styles.css'),
    'utf8',
  );
  const app = readFileSync(join(__dirname, 'theme.css'), 'utf8');
  const value = (css: string) => {
    // The first declaration is the light theme's (`:root, [data-theme-mode='light']` comes before the dark one).
    const m = new RegExp(`${name}:\\s*(#[0-9a-f]{6})`, 'i').exec(css);
    return m?.[1];
  };
  return value(app) ?? value(bui)!;
}

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map(i => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};

describe('the light theme', () => {
  it('draws a disabled primary button unlike an enabled one: a pale fill, not a darker blue', () => {
    const page = lightToken('--bui-bg-app');
    const enabled = lightToken('--bui-bg-solid');
    const disabled = lightToken('--bui-bg-solid-disabled');
    // An enabled primary button stands out from the page; a disabled one barely does.
    expect(contrast(enabled, page)).toBeGreaterThan(4.5);
    expect(contrast(disabled, page)).toBeLessThan(1.5);
    expect(luminance(disabled)).toBeGreaterThan(luminance(enabled));
    // Its label stays legible on that fill.
    expect(
      contrast(lightToken('--bui-fg-solid-disabled'), disabled),
    ).toBeGreaterThan(3);
  });
});
