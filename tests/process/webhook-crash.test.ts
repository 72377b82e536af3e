import { afterAll, describe, expect, test } from 'bun:test';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { startServer, stopServer } from './server.ts';

/**
 * Acceptance (webhooks, crash safety): SIGKILL the server while deliveries are pending; after a restart every event
 * reaches the receiver at least once, and a repeat carries the same X-FC-Delivery-Id so the receiver can dedupe.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-webhook-crash-'));
const N = 60;

// A slow receiver on loopback, so that many deliveries are still pending when the server dies.
const seen = new Map<string, number>(); // delivery id → times received
const cfdiIds = new Set<string>();
const receiver = Bun.serve({
  port: 0,
  async fetch(req) {
    const id = req.headers.get('x-fc-delivery-id') ?? '';
    const body = JSON.parse(await req.text());
    await Bun.sleep(40);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    cfdiIds.add(body.data.cfdi_id);
    return new Response('ok');
  },
});
afterAll(() => {
  receiver.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

// A 5 s job lease (30 s by default): the restart takes over what the killed run was delivering without waiting out the default.
const LOOPBACK_RECEIVER = { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_LEASE_SECONDS: '5' };

// SQLite only: one process on its SQLite file (on PostgreSQL, tests/process/multi-instance.test.ts).
describe.skipIf(TEST_ENGINE !== 'sqlite')('webhook crash safety', () => {
  test('SIGKILL with deliveries pending; after restart every event is delivered at least once', async () => {
    const first = await startServer(dataDir, LOOPBACK_RECEIVER);
    const json = (body: unknown, token?: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const key = await issuer(serverTarget(first.base), { email: 'hooks@example.com', keys: ['test'], csd: true });
    const hook = await fetch(`${first.base}/webhooks`, json({ url: `http://127.0.0.1:${receiver.port}/hook`, events: ['cfdi.timbrado'] }, key.key));
    expect(hook.status).toBe(201);

    const body = {
      tipo: 'I',
      forma_pago: '03',
      receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
      conceptos: [
        {
          clave_prod_serv: '84111506',
          clave_unidad: 'E48',
          descripcion: 'Servicio',
          cantidad: 1,
          valor_unitario: 100,
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
      ],
    };
    const issued: string[] = [];
    for (let i = 0; i < N; i++) {
      const res = await fetch(`${first.base}/cfdis`, json(body, key.key));
      expect(res.status).toBe(201);
      issued.push(((await res.json()) as any).id);
    }
    // Kill once some deliveries have arrived and others are still pending.
    for (let i = 0; i < 1000 && seen.size < 5; i++) await Bun.sleep(5);
    first.proc.kill('SIGKILL');
    await first.proc.exited;
    const beforeRestart = seen.size;
    const watch = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    const pendingAtKill = (watch.prepare("select count(*) n from webhook_deliveries where state = 'pendiente'").get() as { n: number }).n;
    watch.close();
    expect(beforeRestart).toBeLessThan(N);
    expect(pendingAtKill).toBeGreaterThan(0);

    // Deliveries the killed run was making stay leased to it until the lease expires (5 s here): only then may another
    // process (on PostgreSQL, possibly a live instance's) take them over. Wait until each is recorded.
    const second = await startServer(dataDir, LOOPBACK_RECEIVER);
    const pending = () => {
      const db = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
      try {
        return (db.prepare("select count(*) n from webhook_deliveries where state <> 'entregado'").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && (cfdiIds.size < N || pending() > 0)) await Bun.sleep(200);
    await stopServer(second.proc);

    // Every stamped invoice's event reached the receiver, each delivery id at least once.
    expect([...cfdiIds].sort()).toEqual([...issued].sort());
    const check = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    const deliveries = check.prepare('select id, state from webhook_deliveries').all() as { id: string; state: string }[];
    check.close();
    expect(deliveries).toHaveLength(N);
    for (const d of deliveries) {
      expect(d.state).toBe('entregado');
      expect(seen.get(d.id) ?? 0).toBeGreaterThanOrEqual(1);
    }
    expect(seen.size).toBe(N); // repeats (if any) reuse the delivery id
    const repeats = [...seen.values()].filter((n) => n > 1).length;
    console.log(`webhook crash test: ${beforeRestart} of ${N} delivered before SIGKILL, ${pendingAtKill} pending; ${repeats} delivered twice (same id)`);
  }, 150_000);
});
