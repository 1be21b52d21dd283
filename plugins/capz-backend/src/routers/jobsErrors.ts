import { serializeError } from '@backstage/errors';
import type express from 'express';
import { JobConflictError, PreflightFailedError } from '../jobs/conflicts';

export { PreflightFailedError };

/** The fields an error adds at the top of its body (documented in openapi.yaml: JobConflict, PreflightFailed). */
function bodyFields(
  e: unknown,
): { statusCode: number; fields: Record<string, unknown> } | undefined {
  if (e instanceof JobConflictError)
    return { statusCode: 409, fields: { jobId: e.jobId } };
  if (e instanceof PreflightFailedError)
    return { statusCode: 422, fields: { preflight: e.preflight } };
  return undefined;
}

/**
 * Backstage's error body (`error` serialized by @backstage/errors, `request`, `response`) plus the fields naming
 * what caused it: `jobId` for a conflict a job causes, `preflight` for a failed preflight. Every other error goes on
 * to Backstage's own error handler unchanged.
 */
export function jobErrorBodies(): express.ErrorRequestHandler {
  return (error, req, res, next) => {
    const extra = bodyFields(error);
    if (!extra || res.headersSent) {
      next(error);
      return;
    }
    res.status(extra.statusCode).json({
      error: serializeError(error),
      request: { method: req.method, url: req.originalUrl },
      response: { statusCode: extra.statusCode },
      ...extra.fields,
    });
  };
}
