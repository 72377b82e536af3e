export { openDatabase, storageRoom, freeBytes, MIGRATIONS_FOLDER, MIN_FREE_BYTES, LOW_FREE_BYTES, schema } from './client.ts';
export { withTransaction, type Db, type DbOrTx, type Tx } from './connection.ts';
export { prepared, statement } from './prepared.ts';
