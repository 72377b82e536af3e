import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createTestApp, ingreso, issuer, READY, TEST_ENGINE } from '../../helpers.ts';

const SRC = join(import.meta.dir, '../../../src');
/** The lifecycle and the statement it runs for a stamp (the engine-specific JSON merge). */
const OWNERS = ['invoices/cfdis/lifecycle.ts', 'invoices/cfdis/queries.ts'];
/** The one insert of a CFDI, in its first status (issuing calls the lifecycle's `born` for its reactions). */
const ISSUING = ['invoices/cfdis/issue.ts'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/**
 * Where a file writes the cfdis table: the query builder's update or insert on `cfdis`, SQL text that updates or
 * inserts into it, or the lifecycle's stamp statement (cfdiQueries) called from elsewhere.
 */
function cfdiWrites(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\.(update|insert)\(\s*cfdis\s*\)/g)) found.push(m[0]);
  for (const m of text.matchAll(/\b(update|insert\s+into)\s+["`]?cfdis["`]?\s/gi)) found.push(m[0].trim());
  for (const m of text.matchAll(/cfdiQueries\([^)]*\)\.recordStamp/g)) found.push(m[0]);
  return found;
}

describe('one CFDI lifecycle', () => {
  test('no file but the lifecycle writes a CFDI (its status); issuing only inserts one', () => {
    const offenders: string[] = [];
    for (const file of sources(SRC)) {
      const name = relative(SRC, file);
      if (OWNERS.includes(name)) continue;
      const writes = cfdiWrites(readFileSync(file, 'utf8')).filter((w) => !(ISSUING.includes(name) && w === '.insert(cfdis)'));
      if (writes.length > 0) offenders.push(`${name}: ${writes.join(', ')}`);
    }
    expect(offenders).toEqual([]);
  });

  test('the check finds a status write outside the lifecycle', () => {
    expect(cfdiWrites("await tx.update(cfdis).set({ status: 'fallido' }).where(eq(cfdis.id, id));")).toEqual(['.update(cfdis)']);
    expect(cfdiWrites('await tx\n    .update( cfdis )\n    .set({ status })')).toHaveLength(1);
    expect(cfdiWrites("sql`UPDATE cfdis SET status = 'vigente'`")).toEqual(['UPDATE cfdis']);
    expect(cfdiWrites('update "cfdis" set status = $1')).toEqual(['update "cfdis"']);
    expect(cfdiWrites('cfdiQueries(tx).recordStamp(tx, id, stamp, now, from)')).toHaveLength(1);
    expect(cfdiWrites('await tx.update(cfdiEmails).set({ status })')).toEqual([]);
  });

  test('every move writes its history row: queued → stamped, queued → failed, vigente → cancelacion_pendiente → cancelado', async () => {
    const t = await createTestApp({ wakeOnEnqueue: false });
    const { key } = await issuer(t, READY);
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.call(method, path, { token: key, body, headers });
    const moves = async (id: string) =>
      (
        await t.query<{ from_status: string; to_status: string }>(sql`select from_status, to_status from cfdi_status_changes where cfdi_id = ${id} order by id`)
      ).map((m) => `${m.from_status}>${m.to_status}`);

    const stamped = await call('POST', '/cfdis', ingreso(), { 'x-sandbox-scenario': 'pac_unavailable' });
    expect(stamped.status).toBe(202);
    t.clock.advance(5_000);
    await t.app.worker.drain();
    expect((await call('GET', `/cfdis/${stamped.json.id}`)).json).toMatchObject({ status: 'vigente', pac: 'sandbox' });
    expect(await moves(stamped.json.id)).toEqual(['en_cola>vigente']);

    const failed = await call('POST', '/cfdis', ingreso(), { 'x-sandbox-scenario': 'pac_rejected' });
    expect(failed.status).toBe(422);
    const [failedRow] = await t.query<{ id: string }>(sql`select id from cfdis where status = 'fallido'`);
    expect(await moves(failedRow!.id)).toEqual(['en_cola>fallido']);
    expect((await call('GET', `/cfdis/${failedRow!.id}`)).json.pac).toBeNull();

    // Issued vigente in its transaction (SQLite): a birth, not a move (no row) until it is cancelled. Where the folio's
    // transaction commits before the seal (PostgreSQL), it was en_cola for that moment: one move.
    const born = TEST_ENGINE === 'postgres' ? ['en_cola>vigente'] : [];
    const issued = await call('POST', '/cfdis', ingreso());
    expect(issued.status).toBe(201);
    expect(issued.json.pac).toBe('sandbox');
    expect(await moves(issued.json.id)).toEqual(born);
    expect((await call('POST', `/cfdis/${issued.json.id}/cancel`, { motivo: '02' })).status).toBe(200);
    expect(await moves(issued.json.id)).toEqual([...born, 'vigente>cancelacion_pendiente', 'cancelacion_pendiente>cancelado']);
  }, 30_000);
});
