/**
 * The real app for the CFDI benchmark: file-backed SQLite in a temp dir, request logs at info on stdout (the
 * benchmark sends them to /dev/null), the EKU9003173C9 test CSD uploaded through the API, one invoice issued.
 * `--seed N` then copies that invoice's row N - 1 times straight into SQLite (fresh time-sortable ids, folios
 * and UUIDs) so the table holds N invoices. Prints one ready line on stderr: { ready, url, key, seeded_ms }.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app.ts';
import { coordinationFor } from '../../src/topology/one-database.ts';
import { forgetTenant } from '../../src/auth/tenants/lookup.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createScheduler } from '../../src/jobs/scheduler.ts';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSandboxSat } from '../../src/pac/sandbox.ts';
import { INVOICE } from '../invoice.ts';
import { sql } from 'drizzle-orm';
import { closeDatabase, exec, sqliteConnection } from '../../tests/helpers.ts';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '0' }, synchronous: { type: 'string', default: 'full' } } });
const seed = Number(values.seed);

const dir = mkdtempSync(join(tmpdir(), 'cfdi-bench-cfdis-'));
const db = openDatabase(join(dir, 'bench.sqlite'), values.synchronous === 'normal' ? 'normal' : 'full');
const logger = createLogger('info');
const scheduler = createScheduler({ logger });
scheduler.start();
const app = createApp({
  db,
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123',
  masterKey: Buffer.alloc(32, 1),
  sandboxSat: createSandboxSat(),
  logger,
  coordination: coordinationFor(db, { heartbeat: scheduler }),
});

async function call(path: string, token: string | undefined, body: unknown) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (!(body instanceof FormData)) headers['content-type'] = 'application/json';
  const res = await app.request(`/api/v1${path}`, { method: 'POST', headers, body: body instanceof FormData ? body : JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as any;
}

const reg = await call('/auth/register', undefined, {
  email: 'bench@example.com',
  password: 'bench-password-1',
  nombre: 'Bench',
  tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
});
const { key } = await call('/api-keys', reg.access_token, { name: 'bench' });
// The benchmark measures throughput, not the plan's limit.
await exec(db, sql`update tenants set plan = 'enterprise', rate_limit_per_minute = 100000000`);
forgetTenant(db, reg.tenant.id);

const csd = new URL('../../tests/fixtures/csd/EKU9003173C9_CSD/', import.meta.url).pathname;
const form = new FormData();
form.append('cer', new Blob([readFileSync(`${csd}EKU9003173C9.cer`)]), 'EKU9003173C9.cer');
form.append('key', new Blob([readFileSync(`${csd}EKU9003173C9.key`)]), 'EKU9003173C9.key');
form.append('password', '12345678a');
await call('/csds', key, form);
const first = await call('/cfdis', key, INVOICE);

let seededMs = 0;
if (seed > 1) {
  // Copies of the real row; ids 1 ms apart after it, so they sort like invoices issued one per millisecond.
  const t0 = performance.now();
  // SQLite-only: copies in bulk through one prepared statement, which the seeding's speed depends on.
  const sqlite = sqliteConnection(db);
  const row = sqlite.prepare('select * from cfdis where id = ?').get(first.id) as Record<string, unknown>;
  const cols = Object.keys(row);
  const insert = sqlite.prepare(`insert into cfdis (${cols.join(', ')}) values (${cols.map((c) => `@${c}`).join(', ')})`);
  const base = Date.now();
  sqlite.transaction(() => {
    for (let i = 1; i < seed; i++) {
      const at = new Date(base + i).toISOString();
      insert.run({
        ...row,
        id: newId('cfdi', base + i),
        uuid: crypto.randomUUID().toUpperCase(),
        folio: (row.folio as number) + i,
        created_at: at,
        updated_at: at,
      });
    }
  })();
  seededMs = Math.round(performance.now() - t0);
}

// SIGTERM ends the process normally (so `bun --cpu-prof` writes its profile) and removes the database.
process.on('SIGTERM', () => {
  scheduler.stop();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
const server = Bun.serve({ port: 0, fetch: app.fetch });
console.error(JSON.stringify({ ready: true, url: `http://127.0.0.1:${server.port}/api/v1`, key, seeded_ms: seededMs }));
