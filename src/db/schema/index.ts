export * from './identity.ts';
export * from './csds.ts';
export * from './catalogs.ts';
export * from './clients.ts';
export * from './cfdis.ts';
export * from './jobs.ts';
export * from './webhooks.ts';
export * from './cancellations.ts';
