/**
 * The audit event of a refused request or action: a failed event with the caller and the refusal's words
 * (routers/auditRefusals.ts for every route's 403, actions/day2Actions.ts for a confirm refused before any request).
 */
export const REFUSED_EVENT_ID = 'capz-permission-denied';
