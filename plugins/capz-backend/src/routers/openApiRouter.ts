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
  } = {},
) {
  const router = await createOpenApiRouter({
    ...(o.middleware ? { middleware: o.middleware } : {}),
    validatorOptions: o.validateResponses
      ? { validateResponses: true }
      : undefined,
  });
  router.use(explainValidationErrors());
  return router;
}
