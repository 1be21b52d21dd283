/** The order of health values, from good to bad: how verdicts compare and roll up. */
import type { Health } from '../types';

/** From good to bad; {@link worse} and the rollup use this order. @public */
export const HEALTH_ORDER: readonly Health[] = [
  'healthy',
  'paused',
  'progressing',
  'deleting',
  'unknown',
  'degraded',
  'failed',
];

/** Compares two health values: negative when `a` is better than `b`, 0 when equal, positive when worse. @public */
export function compareHealth(a: Health, b: Health): number {
  return HEALTH_ORDER.indexOf(a) - HEALTH_ORDER.indexOf(b);
}

/** The worse of two health values (order: {@link HEALTH_ORDER}). @public */
export function worse(a: Health, b: Health): Health {
  return compareHealth(a, b) >= 0 ? a : b;
}
