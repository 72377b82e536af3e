import { describe, expect, test } from 'bun:test';
import { createTestApp, ingreso, issuer, READY } from '../../helpers.ts';

describe('pac: which provider stamped a CFDI', () => {
  test('GET /cfdis/{id} and the list show it (null while not stamped); the list filters by it; a malformed name is 400 naming query.pac', async () => {
    const t = await createTestApp({ wakeOnEnqueue: false });
    const { key } = await issuer(t, READY);
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.call(method, path, { token: key, body, headers });
    const stamped = await call('POST', '/cfdis', ingreso());
    expect(stamped.status).toBe(201);
    expect(stamped.json.pac).toBe('sandbox');
    const queued = await call('POST', '/cfdis', ingreso(), { 'x-sandbox-scenario': 'pac_unavailable' });
    expect(queued.status).toBe(202);
    expect((await call('GET', `/cfdis/${queued.json.id}`)).json.pac).toBeNull();

    const list = (await call('GET', '/cfdis')).json.data.map((c: { id: string; pac: string | null }) => [c.id, c.pac]);
    expect(list).toEqual([
      [queued.json.id, null],
      [stamped.json.id, 'sandbox'],
    ]);
    expect((await call('GET', '/cfdis?pac=sandbox')).json.data.map((c: { id: string }) => c.id)).toEqual([stamped.json.id]);
    expect((await call('GET', '/cfdis?pac=sw')).json.data).toEqual([]);
    const bad = await call('GET', '/cfdis?pac=SW!');
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.map((d: { field: string }) => d.field)).toEqual(['query.pac']);

    t.clock.advance(5_000);
    await t.app.worker.drain();
    expect((await call('GET', `/cfdis/${queued.json.id}`)).json).toMatchObject({ status: 'vigente', pac: 'sandbox' });
  }, 30_000);
});
