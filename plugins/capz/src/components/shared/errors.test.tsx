import { ResponseError } from '@backstage/errors';
import { render, screen } from '@testing-library/react';
import { ErrorAlert, errorAdvice } from './errors';

/** A failed request as the page's fetch sees it. */
const failed = (status: number, body: string, contentType: string) =>
  ResponseError.fromResponse(
    new Response(body, { status, headers: { 'content-type': contentType } }),
  );

const UNREACHED = 'The Backstage backend could not be reached.';

/** The capz backend's own 503 while a management cluster does not answer: Backstage's error body. */
const mgmtDown = () =>
  failed(
    503,
    JSON.stringify({
      error: {
        name: 'ServiceUnavailableError',
        message:
          'Management cluster local did not answer (connection refused (ECONNREFUSED)), so nothing was written. Try again once it answers.',
      },
      request: { method: 'GET', url: '/clusters/local/team-a/alpha/tree' },
      response: { statusCode: 503 },
    }),
    'application/json; charset=utf-8',
  );

describe('errorAdvice for a 5xx', () => {
  it("shows the backend's own 503 message without saying the backend could not be reached", async () => {
    const error = await mgmtDown();
    expect(errorAdvice(error)).toBeUndefined();
    render(<ErrorAlert title="Could not load cluster" error={error} />);
    expect(
      screen.getByText(/Management cluster local did not answer/),
    ).toBeInTheDocument();
    expect(screen.queryByText(new RegExp(UNREACHED))).toBeNull();
  });

  it('keeps the advice for a proxy page: 502, 504 and a non-JSON 503', async () => {
    for (const status of [502, 503, 504]) {
      const error = await failed(
        status,
        '<html><body>Bad Gateway</body></html>',
        'text/html',
      );
      expect(errorAdvice(error)).toContain(UNREACHED);
    }
  });
});

describe('an error message', () => {
  it("starts the alert's sentence with a capital, as the backend's rule messages do not", async () => {
    const error = await failed(
      409,
      JSON.stringify({
        error: {
          name: 'ConflictError',
          message: 'cluster-deleting: cluster alpha is being deleted',
        },
        response: { statusCode: 409 },
      }),
      'application/json; charset=utf-8',
    );
    render(<ErrorAlert title="Could not load cluster" error={error} />);
    expect(
      screen.getByText(/^Cluster-deleting: cluster alpha is being deleted/),
    ).toBeInTheDocument();
  });
});
