export * from './identity.ts';
export * from './csds.ts';
