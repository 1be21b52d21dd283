/**
 * An error as ARM reports it: HTTP status plus `{"error":{"code","message"}}` (docs/azure-facts.md#arm-envelope). ASO
 * surfaces the ARM code as its condition reason (docs/capz-aso-facts.md#aso-conditions), so the simulated ASO reuses
 * `code` as is.
 */
export class AzureError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
  toBody() {
    return { error: { code: this.code, message: this.message } };
  }
}

export const notFound = (type: string, name: string, rg?: string) =>
  new AzureError(
    404,
    type === 'Microsoft.Resources/resourceGroups'
      ? 'ResourceGroupNotFound'
      : 'ResourceNotFound',
    type === 'Microsoft.Resources/resourceGroups'
      ? `Resource group '${name}' could not be found.`
      : `The Resource '${type}/${name}' under resource group '${rg}' was not found.`,
  );
