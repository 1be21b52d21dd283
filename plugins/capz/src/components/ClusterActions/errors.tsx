import { ResponseError } from '@backstage/errors';
import { Alert } from '@backstage/ui';
import { backendAnswered, errorMessage } from '../shared/errors';
import { asSentence } from '../shared/text';

/**
 * What a request is: a day-2 action's preview (`action`), its confirm refused as stale (`confirm`: the backend's
 * message says what changed), or a read that writes nothing (`read`: connect commands, a kubeconfig download).
 */
export type ActionErrorContext = 'action' | 'confirm' | 'read';

/**
 * What a day-2 request's failure means and what to do, by status code, in plain words; only what is true of the
 * request (a read has no preview and writes nothing, so it gets no word about either).
 */
export function actionErrorAdvice(
  error: Error,
  permission: string,
  context: ActionErrorContext = 'action',
): string | undefined {
  const status = error instanceof ResponseError ? error.statusCode : undefined;
  if (context === 'read' && (status === 400 || status === 409))
    return undefined;
  // The backend answered with its own error (Azure throttling or unavailable: "try again in 30 s"; Azure refusing the
  // credential): its message says what happened and when to try again, and the backend was reached.
  if (status !== undefined && status >= 500 && backendAnswered(error))
    return undefined;
  switch (status) {
    case 400:
      return 'The change breaks a rule, so nothing was written. Change the values and preview again.';
    case 403:
      return `You are not allowed to do this on this cluster. Ask a platform engineer for the ${permission} permission on its management cluster or namespace.`;
    case 404:
      return 'The cluster or the pool was not found: it may have been deleted or renamed. Reload the page.';
    case 409:
      return context === 'confirm'
        ? 'Press Preview again to see what the action changes now.'
        : 'The cluster is not in a state that allows this right now, so nothing was written: wait for it to settle, then preview again.';
    case 401:
      return 'Your session may have expired: sign in again.';
    case 502:
    case 503:
    case 504:
      return 'The Backstage backend could not be reached. Try again in a moment.';
    default:
      return undefined;
  }
}

/** A failed day-2 request, with what to do about it. */
export function ActionError({
  title,
  error,
  permission,
  context,
}: {
  title: string;
  error: Error;
  permission: string;
  context?: ActionErrorContext;
}) {
  const advice = actionErrorAdvice(error, permission, context);
  return (
    <Alert
      status="danger"
      icon
      title={title}
      description={
        <>
          {asSentence(errorMessage(error))}
          {advice ? <> {advice}</> : null}
        </>
      }
    />
  );
}
