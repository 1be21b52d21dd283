import { ResponseError } from '@backstage/errors';
import { Alert } from '@backstage/ui';
import { asSentence } from './text';

/**
 * Whether the error body is the backend's own (Backstage's error body names the error, e.g. AzureServiceError or
 * ServiceUnavailableError), not one made up for an answer that was not the backend's (a proxy's 502 page:
 * ResponseError names it plain `Error`).
 */
export function backendAnswered(error: Error): boolean {
  const name =
    error instanceof ResponseError ? error.body?.error?.name : undefined;
  return typeof name === 'string' && name !== '' && name !== 'Error';
}

/** What a person can do about an error from the capz backend, by status code. */
export function errorAdvice(error: Error): string | undefined {
  const status = error instanceof ResponseError ? error.statusCode : undefined;
  // The backend answered with its own error (e.g. a management cluster that did not answer): its message says what
  // happened, and the backend was reached.
  if (status !== undefined && status >= 500 && backendAnswered(error))
    return undefined;
  switch (status) {
    case 401:
      return 'Your session may have expired: sign in again.';
    case 403:
      return 'You are not allowed to read this. Ask a platform engineer for the capz.cluster.read permission on this management cluster or namespace.';
    case 404:
      return 'It may have been deleted or renamed, or its management cluster is not configured. Go back to the clusters page to find it.';
    case 400:
      return 'The request was not valid; check the values in the address or the time range.';
    case 502:
    case 503:
    case 504:
      return 'The Backstage backend could not be reached. Try again in a moment.';
    default:
      return undefined;
  }
}

/** The message of an error, without the "Request failed with 403 Forbidden," prefix ResponseError adds. */
export function errorMessage(error: Error): string {
  if (error instanceof ResponseError)
    return error.body?.error?.message ?? error.message;
  return error.message;
}

/** An error from the backend, with what to do about it. */
export function ErrorAlert({ title, error }: { title: string; error: Error }) {
  const advice = errorAdvice(error);
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
