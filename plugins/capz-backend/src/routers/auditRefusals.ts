import type {
  AuditorService,
  LoggerService,
} from '@backstage/backend-plugin-api';
import { isError } from '@backstage/errors';
import type express from 'express';
import { REFUSED_EVENT_ID } from '../permissions/refusedEvent';

/**
 * A refusal is a decision the audit log keeps, as it keeps every change that was allowed: any 403 of a CAPZ route
 * (the policy denied the permission on that cluster, or the route takes no such principal) becomes a failed
 * `capz-permission-denied` event with the caller, the request and the refusal's words. Installed once after every
 * router, so no route can refuse without it; the error then goes on unchanged to Backstage's error handler. A 401
 * has no caller to name and is not audited (the auditor resolves the actor from the request's credentials).
 */
export function auditRefusals(
  auditor: AuditorService,
  logger: LoggerService,
): express.ErrorRequestHandler {
  return (error, req, _res, next) => {
    if (!isError(error) || error.name !== 'NotAllowedError') {
      next(error);
      return;
    }
    auditor
      .createEvent({
        eventId: REFUSED_EVENT_ID,
        severityLevel: 'medium',
        request: req,
      })
      .then(event => event.fail({ error }))
      .catch(e =>
        // The refusal still reaches the caller; the log says what the audit log misses.
        logger.warn(
          `could not audit a refusal of ${req.method} ${req.originalUrl}: ${e}`,
        ),
      )
      .finally(() => next(error));
  };
}
