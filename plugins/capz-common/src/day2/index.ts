export * from './api';
export * from './permissions';
