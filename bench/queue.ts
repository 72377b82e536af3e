/**
 * Job queue throughput (issue 5), in one process on a file-backed SQLite database (WAL):
 *  1. jobs claimed and completed per second with a no-op handler (target ≥ 5,000/s);
 *  2. drain time of 10,000 queued invoices: issued while the provider is down, then stamped by the worker
 *     (sandbox signer: the Sello was made at issue time, each stamp signs the TFD).
 *
 *   bun bench/queue.ts [--jobs 20000] [--invoices 10000]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { coordinationFor } from '../src/topology/one-database.ts';
import { openDatabase } from '../src/db/client.ts';
import { enqueue } from '../src/jobs/queue.ts';
import { createWorker } from '../src/jobs/worker.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createSandboxPac, createSandboxSat } from '../src/pac/sandbox.ts';
import type { Pac } from '../src/pac/types.ts';
import { benchTenant } from './tenant.ts';
import { withTransaction } from '../src/db/index.ts';
import { eq, sql } from 'drizzle-orm';
import { cfdis } from '../src/db/schema/index.ts';
import { count, exec } from '../tests/helpers.ts';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '20000' }, invoices: { type: 'string', default: '10000' } } });
const logger = createLogger('silent');
const dir = mkdtempSync(join(tmpdir(), 'cfdi-bench-queue-'));

// 1. No-op jobs.
{
  const db = openDatabase(join(dir, 'noop.sqlite'));
  const n = Number(values.jobs);
  const now = new Date();
  await withTransaction(db, { isolation: 'serializable' }, async (tx) => {
    for (let i = 0; i < n; i++) await enqueue(tx, now, { type: 'noop', payload: { i } });
  });
  const worker = createWorker({ db, now: () => new Date(), workerId: 'bench', logger, concurrency: 64, handlers: { noop: { run: async () => {} } } });
  const t0 = performance.now();
  const done = await worker.drain();
  const s = (performance.now() - t0) / 1000;
  console.log(`no-op jobs: ${done} claimed and completed in ${s.toFixed(2)} s → ${Math.round(done / s)} jobs/s (target ≥ 5,000/s)`);
}

// 2. Queued invoices.
{
  const db = openDatabase(join(dir, 'invoices.sqlite'));
  const sandboxSat = createSandboxSat();
  const sandbox = createSandboxPac(sandboxSat);
  let up = false;
  const pac: Pac = {
    ...sandbox,
    stamp: (xml, options) => (up ? sandbox.stamp(xml, options) : Promise.resolve({ ok: false, class: 'provider', message: 'down' } as const)),
  };
  const app = createApp({
    db,
    jwtSecret: 'bench-secret-bench-secret-bench-secret-0123',
    masterKey: Buffer.alloc(32, 1),
    sandboxSat,
    livePacs: [pac],
    logger,
    coordination: coordinationFor(db, { heartbeat: { lastTickAt: () => Date.now(), intervalMs: 5000 } }),
    passwordCost: { memoryCost: 256, timeCost: 1 },
  });
  const post = (path: string, body: unknown, token: string) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const key = await benchTenant(app, db, 'live');

  const n = Number(values.invoices);
  const body = {
    tipo: 'I',
    forma_pago: '03',
    receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
    conceptos: Array.from({ length: 10 }, (_, i) => ({
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: `Servicio ${i}`,
      cantidad: i + 1,
      valor_unitario: `${(i * 12.34 + 10).toFixed(2)}`,
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    })),
  };
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await post('/api/v1/cfdis', body, key);
    if (res.status !== 202) throw new Error(`expected 202, got ${res.status} ${await res.text()}`);
  }
  const issueS = (performance.now() - t0) / 1000;
  up = true;
  await exec(db, sql`update jobs set run_at = ${new Date().toISOString()} where status = 'queued'`);
  const t1 = performance.now();
  await app.worker.drain();
  const drainS = (performance.now() - t1) / 1000;
  const vigente = await count(db, cfdis, eq(cfdis.status, 'vigente'));
  console.log(`queued invoices: ${n} issued with the provider down in ${issueS.toFixed(1)} s (all 202)`);
  console.log(`drain: ${vigente} of ${n} stamped in ${drainS.toFixed(2)} s → ${Math.round(vigente / drainS)} invoices/s`);
  if (vigente !== n) process.exitCode = 1;
}
console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
