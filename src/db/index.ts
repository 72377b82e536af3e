export { openDatabase } from './client.ts';
export { withGroupCommit, withTransaction, type Ahead, type Db, type DbOrTx, type Tx } from './connection.ts';
export { forDialect } from './dialect.ts';
export { closeDatabase, executeSql, writesConcurrently, type Isolation } from './engine.ts';
