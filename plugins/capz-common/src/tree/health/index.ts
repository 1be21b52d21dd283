export * from './order';
export * from './watchedKinds';
export * from './resources';
export { refOf, verdictsChangeAt, type CapzHealthContext } from './verdict';
export * from './aso';
export * from './asoManaged';
export * from './legacyManaged';
export * from './capi';
export * from './objectHealth';
