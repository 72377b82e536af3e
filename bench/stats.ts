/**
 * GET /api/v1/stats (issue 10): latency on a tenant with 100,000 invoices (target < 50 ms), and what the triggers that
 * keep cfdi_stats cost on insert. Invoices are inserted with SQL (spread over 24 months, 5 types, 5 statuses, 3
 * currencies), through the same triggers as the API's writes; then the request runs through the whole app in process.
 *
 *   bun bench/stats.ts [--rows 100000] [--seconds 5]
 */
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/client.ts';
import { benchApp, benchTenant } from './tenant.ts';
import { sql } from 'drizzle-orm';
import { query, sqliteConnection } from '../tests/helpers.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, seconds: { type: 'string', default: '5' } } });
const rows = Number(values.rows);
const seconds = Number(values.seconds);
const db = openDatabase(':memory:');
const app = benchApp(db);
const key = await benchTenant(app, db, 'test');
const tenantId = (await query<{ id: string }>(db, sql`select id from tenants limit 1`))[0]!.id;

// SQLite-only: 100,000 rows through one prepared statement in one transaction, which the seeding's speed depends on.
const sqlite = sqliteConnection(db);
const insert = sqlite.prepare(`insert into cfdis (id, tenant_id, environment, uuid, tipo, status, serie, folio, fecha, receptor_rfc, receptor_nombre,
  moneda, subtotal, total, summary, created_at, updated_at) values (?, ?, 'test', ?, ?, ?, 'A', ?, ?, 'ICV060329BY0', 'INMOBILIARIA CVA', ?, ?, ?, '{}', ?, ?)`);
const TIPOS = ['I', 'I', 'I', 'E', 'P', 'N', 'T'];
const STATUSES = ['vigente', 'vigente', 'vigente', 'cancelado', 'fallido', 'en_cola', 'cancelacion_pendiente'];
const MONEDAS = ['MXN', 'MXN', 'USD', 'EUR'];
const t0 = performance.now();
sqlite.transaction(() => {
  for (let i = 0; i < rows; i++) {
    const month = String((i % 12) + 1).padStart(2, '0');
    const fecha = `${2025 + (i % 24 >= 12 ? 1 : 0)}-${month}-15T12:00:00`;
    const total = `${(i % 100000) + 1}.${String(i % 100).padStart(2, '0')}`;
    insert.run(
      `cfdi_bench${String(i).padStart(8, '0')}`,
      tenantId,
      crypto.randomUUID().toUpperCase(),
      TIPOS[i % 7],
      STATUSES[(i >> 3) % 7],
      i + 1,
      fecha,
      MONEDAS[i % 4],
      total,
      total,
      fecha,
      fecha,
    );
  }
})();
const insertMs = performance.now() - t0;
console.error(
  `inserted ${rows.toLocaleString('en-US')} invoices in ${(insertMs / 1000).toFixed(2)} s (${Math.round(rows / (insertMs / 1000)).toLocaleString('en-US')}/s, triggers included)`,
);

const get = async () => {
  const res = await app.request('/api/v1/stats', { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as { cfdis: { total: number } };
};
const check = await get();
if (check.cfdis.total !== rows) throw new Error(`stats say ${check.cfdis.total} invoices, expected ${rows}`);
for (let i = 0; i < 50; i++) await get();
const times: number[] = [];
const start = performance.now();
while (performance.now() - start < seconds * 1000) {
  const a = performance.now();
  await get();
  times.push(performance.now() - a);
}
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(2);
console.log(
  `GET /stats on ${rows.toLocaleString('en-US')} invoices: mean ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(2)} ms, p50 ${pct(50)} ms, p99 ${pct(99)} ms (${times.length} requests) — target < 50 ms`,
);
console.log(`Bun ${Bun.version}, one thread`);
