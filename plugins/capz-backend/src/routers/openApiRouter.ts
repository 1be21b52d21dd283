import express from 'express';
import { createOpenApiRouter } from '../schema/openapi.generated';
import { explainValidationErrors } from './validationMessages';

/**
 * A router of openapi.yaml's routes, as every CAPZ router opens one: requests (and, for the tests, responses) checked
 * against the document, and the validator's 400s in the sender's words before any route.
 */
export async function capzOpenApiRouter(
  o: {
    validateResponses?: boolean;
    middleware?: NonNullable<
      Parameters<typeof createOpenApiRouter>[0]
    >['middleware'];
    /**
     * The largest JSON body the routes take (express.json's `limit`); the default, as the validated router's own
     * parser, is body-parser's 100 kB. A larger body is refused with 400 in words (validationMessages.ts).
     */
    bodyLimit?: string;
  } = {},
) {
  const middleware =
    o.middleware ??
    (o.bodyLimit ? [express.json({ limit: o.bodyLimit })] : undefined);
  const router = await createOpenApiRouter({
    ...(middleware ? { middleware } : {}),
    validatorOptions: {
      // The document is checked against the OpenAPI 3 schema once, by a test (schema/openapi.test.ts), not by each of
      // the plugin's seven routers at every start: that check compiled the meta-schema seven times, ~0.5 s of a
      // backend's ~5 s start (a CPU profile of the crash tests' backend, docs/job-guarantees.md#any-crash-point).
      validateApiSpec: false,
      ...(o.validateResponses ? { validateResponses: true } : {}),
    },
  });
  router.use(explainValidationErrors());
  return router;
}
