export * from './identity.ts';
export * from './csds.ts';
export * from './catalogs.ts';
