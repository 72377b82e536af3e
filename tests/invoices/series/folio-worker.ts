/** Worker for the concurrent folio test: its own connection to the same database file, allocating in transactions. */
import { openDatabase } from '../../../src/db/client.ts';
import { allocateFolio } from '../../../src/invoices/series/service.ts';
import { withTransaction } from '../../../src/db/index.ts';
import { closeDatabase } from '../../helpers.ts';

declare const self: Worker;

self.onmessage = async (e: MessageEvent<{ path: string; tenantId: string; serie?: string; n: number }>) => {
  const { path, tenantId, serie, n } = e.data;
  const db = openDatabase(path);
  const folios: string[] = [];
  for (let i = 0; i < n; i++) {
    const got = await withTransaction(db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, { tenantId, environment: 'test' }, serie));
    folios.push(`${got.serie}-${got.folio}`);
  }
  closeDatabase(db);
  postMessage(folios);
};
