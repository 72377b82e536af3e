/**
 * Webhook delivery (issue 6), in one process on a file-backed SQLite database (WAL), receivers in another process:
 *  1. deliveries per second to a local receiver that answers at once (target ≥ 1,000/s): events are recorded with
 *     their outbox deliveries, then the delivery pool drains them (each: claim, sign, POST, record the attempt);
 *  2. a slow receiver (5 s per request) with a backlog does not delay another tenant: the fast tenant's deliveries
 *     are timed alone, then behind the slow tenant's backlog.
 *
 *   bun bench/webhooks.ts [--deliveries 10000] [--fair 1000]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/client.ts';
import { recordEvent } from '../src/invoices/events.ts';
import { createLogger } from '../src/lib/logger.ts';
import { spawnReady } from './servers/spawn.ts';
import { benchApp } from './tenant.ts';
import { withTransaction } from '../src/db/index.ts';
import { and, eq } from 'drizzle-orm';
import { webhookDeliveries } from '../src/db/schema/index.ts';
import { count } from '../tests/helpers.ts';

const { values } = parseArgs({ options: { deliveries: { type: 'string', default: '10000' }, fair: { type: 'string', default: '1000' } } });
const logger = createLogger('silent');
const dir = mkdtempSync(join(tmpdir(), 'cfdi-bench-webhooks-'));

const { proc, ready: receivers } = await spawnReady<{ fast: string; slow: string }>([new URL('./servers/receiver.ts', import.meta.url).pathname], 'stdout');

const db = openDatabase(join(dir, 'webhooks.sqlite'));
const app = benchApp(db, { logger, webhookAllowPrivate: true }); // the receivers are on loopback
const post = async (path: string, body: unknown, token?: string) => {
  const res = await app.request(`/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as any;
};
/** A tenant with a test-mode webhook to `url`; returns the tenant id. */
async function tenantWithWebhook(n: number, url: string): Promise<string> {
  const reg = await post('/auth/register', {
    email: `hooks${n}@example.com`,
    password: 'bench-password-1',
    nombre: 'W',
    tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
  });
  const key = (await post('/api-keys', { name: 'w' }, reg.access_token)).key;
  await post('/webhooks', { url, events: ['*'] }, key);
  return reg.tenant.id;
}
const record = (tenantId: string, n: number) =>
  withTransaction(db, { isolation: 'serializable' }, async (tx) => {
    const now = new Date();
    for (let i = 0; i < n; i++)
      await recordEvent(tx, { tenantId, environment: 'test', type: 'cfdi.timbrado', data: { cfdi_id: `cfdi_${i}`, uuid: crypto.randomUUID() }, now });
  });
const delivered = (tenantId: string) => count(db, webhookDeliveries, and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.state, 'entregado')));
/** Seconds until `n` deliveries of the tenant are recorded as delivered. */
async function timeUntilDelivered(tenantId: string, n: number): Promise<number> {
  const t0 = performance.now();
  void app.worker.drain();
  while ((await delivered(tenantId)) < n) await Bun.sleep(2);
  return (performance.now() - t0) / 1000;
}

// 1. Throughput.
{
  const n = Number(values.deliveries);
  const tenant = await tenantWithWebhook(1, receivers.fast);
  await record(tenant, n);
  const t0 = performance.now();
  await app.worker.drain();
  const s = (performance.now() - t0) / 1000;
  const ok = await delivered(tenant);
  console.log(`throughput: ${ok} of ${n} deliveries in ${s.toFixed(2)} s → ${Math.round(ok / s)} deliveries/s (target ≥ 1,000/s)`);
  if (ok !== n) process.exitCode = 1;
}

// 2. A slow receiver with a backlog beside a fast one.
{
  const n = Number(values.fair);
  const alone = await tenantWithWebhook(2, receivers.fast);
  await record(alone, n);
  const aloneS = await timeUntilDelivered(alone, n);
  const slow = await tenantWithWebhook(3, receivers.slow);
  const fast = await tenantWithWebhook(4, receivers.fast);
  await record(slow, 500); // older than the fast tenant's events, and more than the 64 delivery slots
  await record(fast, n);
  const besideS = await timeUntilDelivered(fast, n);
  const slowDone = await delivered(slow);
  console.log(
    `fairness: ${n} deliveries to a fast receiver take ${aloneS.toFixed(2)} s alone, ${besideS.toFixed(2)} s behind 500 pending for a 5 s receiver (${slowDone} of those done by then)`,
  );
}
console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
proc.kill();
process.exit();
