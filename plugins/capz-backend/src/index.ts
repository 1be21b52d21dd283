/**
 * The CAPZ backend plugin.
 *
 * @packageDocumentation
 */
export { capzPlugin as default } from './plugin';
