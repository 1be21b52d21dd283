/**
 * Which status of a condition is its good one (docs/capz-aso-facts.md#condition-polarity). Pure, for the frontend's
 * timeline and anything else that colours a condition by itself.
 */

/**
 * The condition types whose normal state is False: CAPI v1beta2's negative-polarity conditions, as clusterctl's
 * describe lists them and as CAPI's controllers pass them to their summaries (docs/capz-aso-facts.md#condition-polarity).
 * By type, whatever the kind (providers set CAPI's `Paused` too); ASO's `Ready` and CAPZ's conditions are positive.
 * @public
 */
export const NEGATIVE_POLARITY_CONDITION_TYPES: ReadonlySet<string> = new Set([
  'Paused',
  'Deleting',
  'RollingOut',
  'ScalingUp',
  'ScalingDown',
  'Updating',
  'Remediating',
]);

/** Whether a condition type's normal state is False (see {@link NEGATIVE_POLARITY_CONDITION_TYPES}). @public */
export function isNegativePolarity(conditionType: string): boolean {
  return NEGATIVE_POLARITY_CONDITION_TYPES.has(conditionType);
}

/**
 * What a condition's status means for its object: `good` (True of a positive condition, False of a negative one),
 * `bad` (the opposite; its severity, if any, says how bad) or `unknown`.
 * @public
 */
export type ConditionOutcome = 'good' | 'bad' | 'unknown';

/** The {@link ConditionOutcome} of a condition's status, by its type's polarity. @public */
export function conditionOutcome(
  conditionType: string,
  status: string,
): ConditionOutcome {
  if (status !== 'True' && status !== 'False') return 'unknown';
  const normal = isNegativePolarity(conditionType) ? 'False' : 'True';
  return status === normal ? 'good' : 'bad';
}
