/**
 * The CAPZ frontend plugin.
 *
 * @packageDocumentation
 */
export { capzPlugin as default } from './plugin';
export { capzApiRef, type CapzApi } from './api/CapzApi';
