/**
 * What an error answer carries in production: the backend's routers throw, and Backstage's root HTTP router answers
 * with MiddlewareFactory's error handler (rootHttpRouterServiceFactory's default `app.use(middleware.error())`, no
 * options). Its `showStackTraces` defaults to `process.env.NODE_ENV === 'development'`
 * (@backstage/backend-defaults, src/entrypoints/rootHttpRouter/http/MiddlewareFactory.ts), read when the handler is
 * made: with NODE_ENV=production (the Dockerfile's) the body has no stack and no source path; under
 * `backstage-cli package start` (development) it has both. docs/install.md#error-bodies says what to set.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockServices } from '@backstage/backend-test-utils';
import express from 'express';
import request from 'supertest';
import { AzureRequestError, AzureServiceError } from '../azure/errors';

/** A route failing as the capz routes do, behind the error handler the backend's root router installs. */
function app(nodeEnv: string, error: Error) {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = nodeEnv;
  try {
    return express()
      .get('/api/capz/pickers/regions', () => {
        throw error;
      })
      .use(
        MiddlewareFactory.create({
          config: mockServices.rootConfig(),
          logger: mockServices.logger.mock(),
        }).error(),
      );
  } finally {
    process.env.NODE_ENV = previous;
  }
}

const errors = () => [
  new AzureRequestError('"nowhere" is not a region of subscription s', {
    statusCode: 400,
    code: 'NoRegisteredProviderFound',
    field: 'location',
    offered: ['westeurope'],
  }),
  new AzureServiceError('ARM', 'Could not reach ARM', { code: 'ECONNREFUSED' }),
  new Error('unexpected'),
];

describe('error answers', () => {
  it('carry no stack trace and no source path with NODE_ENV=production', async () => {
    for (const error of errors()) {
      const res = await request(app('production', error)).get(
        '/api/capz/pickers/regions',
      );
      expect(res.status).toBe(
        (error as { statusCode?: number }).statusCode ?? 500,
      );
      expect(res.body.error.message).toBe(error.message);
      expect(res.body.error).not.toHaveProperty('stack');
      expect(JSON.stringify(res.body)).not.toMatch(
        /\.ts:\d+|node_modules|\/src\//,
      );
    }
  });

  it('carry the stack in development mode (what the demo showed), so the test above can tell', async () => {
    const res = await request(app('development', errors()[0])).get(
      '/api/capz/pickers/regions',
    );
    expect(res.body.error.stack).toMatch(/errorBody\.test\.ts/);
  });
});
