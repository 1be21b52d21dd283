/**
 * The CAPZ backend plugin.
 *
 * @packageDocumentation
 */
export { capzPlugin as default } from './plugin';
export type {
  CapzClusterQuery,
  CapzClusterResource,
} from './permissions/rules';
export {
  capzClusterConditions,
  createCapzClusterConditionalDecision,
} from './permissions/rules';
