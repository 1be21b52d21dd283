export * from './api';
export * from './permissions';
export * from './snapshot';
export * from './versions';
export * from './plan';
export * from './deleteImpact';
export * from './connect';
export * from './access';
