/**
 * ARM's asynchronous operations for the write API (docs/azure-facts.md#arm-write-api, docs/azure-facts.md#arm-lro): each
 * accepted PUT or DELETE of a managed cluster or agent pool gets an operation whose status URL is returned in
 * `Azure-AsyncOperation` (and, for DELETE, an `operationresults` URL in `Location`). The status follows the model:
 * `InProgress` until the resource's operation finishes there, then `Succeeded`, or `Failed`/`Canceled` with ARM's
 * `error` body. An operation's end is recorded on the world's `change` event (the model emits one after each
 * operation step), so a later operation on the same resource cannot rewrite an earlier one's result.
 *
 * What clients do with it, read in upstream source:
 * - azcore v1.21.0 `sdk/azcore/internal/pollers/async/async.go`: chosen first when `Azure-AsyncOperation` is present;
 *   the initial body's `properties.provisioningState` seeds the state (a terminal one ends the poller at once); each
 *   poll reads `status` (terminal: Succeeded/Completed, Failed/Canceled, `sdk/internal/poller/util.go`); on Failed,
 *   `Result` turns the poll response into the error, which ASO v2.18.0 `v2/internal/genericarmclient/poller.go` hands
 *   to `handleError` -> `CloudError` (`cloud_error.go` reads the nested `error.code`); after a PUT succeeds, `Result`
 *   GETs the original resource URL; after a DELETE there is no final GET.
 * - azcore `internal/pollers/loc/loc.go`: with only `Location`, 202 means in progress and any other 2xx success.
 * The URLs are absolute on the host the request came to (the `Host` header), so a client reaching this server
 * through a proxy under `management.azure.com` polls through the same proxy.
 */
import { randomUUID } from 'node:crypto';
import type { AzureError } from '../azure/errors.ts';
import type { AzureWorld } from '../azure/model.ts';

export type OperationStatus =
  | 'InProgress'
  | 'Succeeded'
  | 'Failed'
  | 'Canceled';

export interface OperationOutcome {
  status: OperationStatus;
  error?: { code: string; message: string };
}

export interface ArmOperation {
  id: string;
  subscriptionId: string;
  location: string;
  startTime: string;
  endTime?: string;
  status: OperationStatus;
  error?: { code: string; message: string };
  /** Reads the operation's state from the model; called until it returns a terminal status. */
  check: () => OperationOutcome;
}

export const errorOf = (e: AzureError) => ({
  code: e.code,
  message: e.message,
});

export class Operations {
  private readonly ops = new Map<string, ArmOperation>();
  private readonly world: AzureWorld;
  private readonly onChange = () => this.update();

  constructor(world: AzureWorld) {
    this.world = world;
    world.on('change', this.onChange);
  }

  start(
    subscriptionId: string,
    location: string,
    check: () => OperationOutcome,
  ): ArmOperation {
    const op: ArmOperation = {
      id: randomUUID(),
      subscriptionId,
      location: location.toLowerCase().replace(/\s/g, ''),
      startTime: new Date().toISOString(),
      status: 'InProgress',
      check,
    };
    this.ops.set(op.id, op);
    this.settle(op);
    return op;
  }

  /** The operation, if it exists in this subscription (ids are compared case-insensitively, as ARM's). */
  get(subscriptionId: string, id: string): ArmOperation | undefined {
    const op = this.ops.get(id.toLowerCase());
    if (!op || op.subscriptionId.toLowerCase() !== subscriptionId.toLowerCase())
      return undefined;
    this.settle(op);
    return op;
  }

  private settle(op: ArmOperation): void {
    if (op.status !== 'InProgress') return;
    const outcome = op.check();
    if (outcome.status === 'InProgress') return;
    op.status = outcome.status;
    op.error = outcome.error;
    op.endTime = new Date().toISOString();
  }

  private update(): void {
    for (const op of this.ops.values()) this.settle(op);
  }

  close(): void {
    this.world.off('change', this.onChange);
  }
}

/** The body of ARM's operation status GET (`Azure-AsyncOperation` URL). */
export function operationToWire(op: ArmOperation) {
  return {
    id: `/subscriptions/${op.subscriptionId}/providers/Microsoft.ContainerService/locations/${op.location}/operations/${op.id}`,
    name: op.id,
    status: op.status,
    startTime: op.startTime,
    ...(op.endTime ? { endTime: op.endTime } : {}),
    ...(op.error ? { error: op.error } : {}),
  };
}
