import { expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { withTransaction, type Tx } from '../../src/db/index.ts';
import { prepared } from '../../src/db/prepared.ts';
import { tenants } from '../../src/db/schema/index.ts';
import { sharedTestDatabase, TEST_ENGINE } from '../helpers.ts';

const tenant = (id: string) => ({
  id,
  rfc: 'EKU9003173C9',
  nombre: 'ESCUELA KEMPER URGATE',
  regimenFiscal: '601',
  codigoPostal: '42501',
  createdAt: new Date().toISOString(),
});

// A hot path's statement is built once: on PostgreSQL every transaction is a new handle, and building it again for each
// cost about a fifth of an invoice's CPU (docs/benchmarks.md, issue 37). Built once, it must still run inside the
// transaction it is used in, through that transaction's connection.
test('a statement prepared in one transaction is built once and runs inside each later transaction, on its connection', async () => {
  const [db] = await sharedTestDatabase(1);
  let builds = 0;
  const insert = (tx: Tx, id: string) =>
    prepared(tx, 'test.insertTenant', (d) => {
      builds++;
      return d
        .insert(tenants)
        .values({
          id: sql.placeholder('id'),
          rfc: sql.placeholder('rfc'),
          nombre: sql.placeholder('nombre'),
          regimenFiscal: sql.placeholder('regimenFiscal'),
          codigoPostal: sql.placeholder('codigoPostal'),
          createdAt: sql.placeholder('createdAt'),
        })
        .prepare();
    }).execute(tenant(id));
  await withTransaction(db!, { isolation: 'read committed' }, (tx) => insert(tx, 't1'));
  // Rolled back: the row written through the shared statement goes with its transaction.
  const undone = withTransaction(db!, { isolation: 'read committed' }, async (tx) => {
    await insert(tx, 't2');
    throw new Error('undo');
  });
  await expect(undone).rejects.toThrow('undo');
  // Two at once, each on its own connection: both commit.
  await Promise.all(['t3', 't4'].map((id) => withTransaction(db!, { isolation: 'serializable' }, (tx) => insert(tx, id))));
  const ids = (await db!.select({ id: tenants.id }).from(tenants)).map((t) => t.id).sort();
  expect(ids).toEqual(['t1', 't3', 't4']);
  // SQLite has one connection and keeps a statement per handle; PostgreSQL builds it once for every transaction.
  if (TEST_ENGINE === 'postgres') expect(builds).toBe(1);
});
