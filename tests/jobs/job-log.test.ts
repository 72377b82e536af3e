import { afterAll, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/lib/logger.ts';
import { createSandboxPac } from '../../src/pac/sandbox.ts';
import type { Pac, StampResult } from '../../src/pac/types.ts';
import { createTestApp, ICV, issuer, testSandboxSat } from '../helpers.ts';

/** What an operator sees of the background work: job outcomes at info/warn, the machinery at debug. */
const invoice = {
  tipo: 'I',
  forma_pago: '03',
  receptor: ICV,
  conceptos: [
    {
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: 'Servicio',
      cantidad: '1',
      valor_unitario: '100',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
};

/** A live PAC that is down once, then rejects for good. */
function downThenRejecting(): Pac {
  const sandbox = createSandboxPac(testSandboxSat());
  let calls = 0;
  return {
    ...sandbox,
    async stamp(): Promise<StampResult> {
      return calls++ === 0
        ? { ok: false, class: 'provider', message: 'provider down' }
        : { ok: false, class: 'definitive', code: '301', message: 'XML mal formado' };
    },
  };
}

const receiver = Bun.serve({ port: 0, fetch: (req) => new Response('x', { status: new URL(req.url).pathname === '/ok' ? 200 : 500 }) });
afterAll(() => receiver.stop(true));

async function setup(level: 'debug' | 'info') {
  const lines: Record<string, any>[] = [];
  const t = await createTestApp({
    livePacs: [downThenRejecting()],
    wakeOnEnqueue: false,
    webhookAllowPrivate: true,
    webhookRetrySchedule: [0, 0],
    logger: createLogger(level, (line) => lines.push(JSON.parse(line))),
  });
  const reg = await issuer(t, { keys: ['test', 'live'], csd: ['test', 'live'] });
  const keys = { test: reg.key, live: reg.live };
  const logged = (msg: string) => lines.filter((l) => l.msg === msg);
  return { t, keys, lines, logged };
}

describe('job outcomes in the log', () => {
  test('stamped from the queue: cfdi id, uuid, attempts', async () => {
    const { t, keys, logged } = await setup('info');
    const res = await t.call('POST', '/cfdis', { token: keys.test, body: invoice, headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(res.status).toBe(202);
    t.clock.advance(5_000);
    await t.app.worker.drain();
    const stamped = (await t.call('GET', `/cfdis/${res.json.id}`, { token: keys.test })).json;
    expect(logged('stamped from queue')).toEqual([expect.objectContaining({ level: 'info', cfdi_id: res.json.id, uuid: stamped.uuid, attempts: 1 })]);
    expect(logged('job claimed')).toEqual([]); // debug only
  });

  test('stamping failed: the reason and the attempts it took', async () => {
    const { t, keys, logged } = await setup('info');
    const res = await t.call('POST', '/cfdis', { token: keys.live, body: invoice });
    expect(res.status).toBe(202);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      await t.app.worker.drain();
    }
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: keys.live })).json.status).toBe('fallido');
    // POST met the provider down (→ 202); the queued job's first attempt was refused for good.
    expect(logged('stamping failed')).toEqual([expect.objectContaining({ level: 'warn', cfdi_id: res.json.id, reason: '301: XML mal formado', attempts: 1 })]);
  });

  test('webhook delivered and webhook delivery failed: delivery id, status code, attempt', async () => {
    const { t, keys, logged } = await setup('info');
    for (const path of ['/ok', '/fail']) {
      const hook = await t.call('POST', '/webhooks', {
        token: keys.test,
        body: { url: `http://127.0.0.1:${receiver.port}${path}`, events: ['cfdi.timbrado'] },
      });
      expect(hook.status).toBe(201);
    }
    expect((await t.call('POST', '/cfdis', { token: keys.test, body: invoice })).status).toBe(201);
    await t.app.worker.drain();
    const delivered = logged('webhook delivered');
    expect(delivered).toEqual([
      expect.objectContaining({ level: 'info', delivery_id: expect.stringMatching(/./), status_code: 200, attempt: 1, event: 'cfdi.timbrado' }),
    ]);
    const failed = logged('webhook delivery failed');
    expect(failed.map((l) => [l.level, l.status_code, l.attempt, l.state])).toEqual([
      ['warn', 500, 1, 'pendiente'],
      ['warn', 500, 2, 'fallido'],
    ]);
    expect(failed[0]!.delivery_id).toBe(failed[1]!.delivery_id);
    expect(failed[0]!.delivery_id).not.toBe(delivered[0]!.delivery_id);
  });

  test('LOG_LEVEL=debug adds the job machinery and the provider call durations', async () => {
    const { t, keys, logged } = await setup('debug');
    const res = await t.call('POST', '/cfdis', { token: keys.test, body: invoice, headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    t.clock.advance(5_000);
    await t.app.worker.drain();
    expect(logged('job claimed')).toContainEqual(expect.objectContaining({ level: 'debug', type: 'cfdi.stamp', attempt: 1, leased_until: expect.any(String) }));
    expect(logged('pac stamp')).toContainEqual(expect.objectContaining({ cfdi_id: res.json.id, ok: true, duration_ms: expect.any(Number) }));
    expect(logged('job done')).toContainEqual(expect.objectContaining({ type: 'cfdi.stamp', duration_ms: expect.any(Number) }));
    expect(logged('jobs drained')).toContainEqual(expect.objectContaining({ jobs: 1 }));
  });
});
