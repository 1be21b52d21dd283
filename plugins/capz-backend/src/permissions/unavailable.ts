import type { PermissionsService } from '@backstage/backend-plugin-api';
import { ServiceUnavailableError } from '@backstage/errors';

/**
 * The permission check could not be made (the permission backend, or the user info its policy reads, answered 5xx
 * or did not answer: e.g. the auth backend's database is restarting). A 503 that says so, not a 500: nothing was read
 * or changed, and the same request can be sent again in a moment.
 */
export class PermissionCheckUnavailableError extends ServiceUnavailableError {
  constructor(readonly reason: string) {
    super(
      `The permission check cannot be made right now (${reason}). Nothing was read or changed; try again in a moment.`,
    );
    // An expected condition, not a bug: its stack (the permission client's) tells a reader nothing.
    delete this.stack;
  }
}

const NETWORK =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up|fetch failed/i;

/** A failure of the check itself, not an answer: a 5xx from the permission backend, or no answer. */
function checkFailed(e: unknown): string | undefined {
  const err = e as {
    name?: string;
    message?: string;
    statusCode?: number;
    response?: { status?: number };
    cause?: { code?: string; message?: string };
  };
  const status = err?.statusCode ?? err?.response?.status;
  if (
    err?.name === 'ResponseError' &&
    typeof status === 'number' &&
    status >= 500
  )
    return `the permission backend answered ${status}`;
  const text = `${err?.message ?? ''} ${err?.cause?.code ?? ''} ${
    err?.cause?.message ?? ''
  }`;
  if (NETWORK.test(text)) return 'the permission backend did not answer';
  return undefined;
}

/**
 * The permissions service whose failures to decide become {@link PermissionCheckUnavailableError}; its decisions
 * (allow, deny, conditional) and every other error pass through unchanged.
 */
export function permissionsAnsweringWhenDown(
  permissions: PermissionsService,
): PermissionsService {
  const mapped = <T>(p: Promise<T>): Promise<T> =>
    p.catch(e => {
      const reason = checkFailed(e);
      throw reason ? new PermissionCheckUnavailableError(reason) : e;
    });
  return {
    authorize: (requests, options) =>
      mapped(permissions.authorize(requests, options)),
    authorizeConditional: (requests, options) =>
      mapped(permissions.authorizeConditional(requests, options)),
  };
}
