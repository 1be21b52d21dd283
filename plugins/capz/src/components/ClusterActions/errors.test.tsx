import { ResponseError } from '@backstage/errors';
import { render, screen } from '@testing-library/react';
import { ActionError, actionErrorAdvice } from './errors';

/** A failed request as the page's fetch sees it. */
const failed = (status: number, body: string, contentType: string) =>
  ResponseError.fromResponse(
    new Response(body, { status, headers: { 'content-type': contentType } }),
  );

/** The capz backend's answer while ARM throttles: Backstage's error body of an AzureServiceError. */
const throttled = () =>
  failed(
    503,
    JSON.stringify({
      error: {
        name: 'AzureServiceError',
        message:
          'Azure is throttling requests; try again in 30 s (ARM answered 429 TooManyRequests while reading the user kubeconfig of AKS cluster rg/alpha in subscription s with credential Secret team-a/aso-credential (client secret, tenant t))',
        statusCode: 503,
        retryAfterSeconds: 30,
      },
      request: {
        method: 'GET',
        url: '/clusters/local/team-a/alpha/kubeconfig',
      },
      response: { statusCode: 503 },
    }),
    'application/json; charset=utf-8',
  );

describe('a day-2 request refused with a 5xx', () => {
  it("shows the backend's message about Azure throttling, without saying the backend could not be reached", async () => {
    const error = await throttled();
    for (const context of ['read', 'action', 'confirm'] as const)
      expect(actionErrorAdvice(error, 'capz.cluster.connect', context)).toBe(
        undefined,
      );
    render(
      <ActionError
        title="Could not download the kubeconfig"
        error={error}
        permission="capz.cluster.connect"
        context="read"
      />,
    );
    const alert = screen.getByText(/^Azure is throttling requests/);
    expect(alert.textContent).toBe(
      'Azure is throttling requests; try again in 30 s (ARM answered 429 TooManyRequests while reading the user kubeconfig of AKS cluster rg/alpha in subscription s with credential Secret team-a/aso-credential (client secret, tenant t))',
    );
    expect(document.body).not.toHaveTextContent(/could not be reached/);
  });

  it('says the backend could not be reached when the answer is not the backend’s (a proxy’s 502 or 503 page)', async () => {
    for (const status of [502, 503, 504]) {
      const error = await failed(
        status,
        '<html><body>Bad gateway</body></html>',
        'text/html',
      );
      expect(actionErrorAdvice(error, 'capz.cluster.connect', 'read')).toBe(
        'The Backstage backend could not be reached. Try again in a moment.',
      );
    }
    const empty = await failed(503, '', 'text/plain');
    expect(actionErrorAdvice(empty, 'capz.cluster.upgrade')).toBe(
      'The Backstage backend could not be reached. Try again in a moment.',
    );
  });
});

describe('a day-2 request refused with a rule', () => {
  it('starts the message with a capital, as a sentence of its own', async () => {
    const error = await failed(
      400,
      JSON.stringify({
        error: {
          name: 'InputError',
          message:
            'pool-not-newer-than-control-plane: pool system cannot move to v1.34.1',
        },
        response: { statusCode: 400 },
      }),
      'application/json; charset=utf-8',
    );
    render(
      <ActionError
        title="The preview failed"
        error={error}
        permission="capz.cluster.upgrade"
      />,
    );
    expect(
      screen.getByText(
        /^Pool-not-newer-than-control-plane: pool system cannot move to v1\.34\.1/,
      ),
    ).toBeInTheDocument();
  });
});
