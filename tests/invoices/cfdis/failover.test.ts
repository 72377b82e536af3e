import { describe, expect, test } from 'bun:test';
import { asc, eq, sql } from 'drizzle-orm';
import { cfdiStampAttempts } from '../../../src/db/schema/index.ts';
import { StampInFlight, cfdiStampAttemptLog, routedStamper } from '../../../src/invoices/cfdis/stamp-routing.ts';
import type { PacRouter } from '../../../src/pac/failover.ts';
import { createTestApp, ingreso, issuer, until } from '../../helpers.ts';
import { scriptedPac } from '../../scripted-pac.ts';

const WINDOW_MS = 60_000;

async function setup() {
  const finkok = scriptedPac('finkok');
  const sw = scriptedPac('sw');
  const t = await createTestApp({ livePacs: [finkok, sw], pacAmbiguousWindowMs: WINDOW_MS, wakeOnEnqueue: false });
  const { live } = await issuer(t, { keys: ['live'], csd: ['live'] });
  const attempts = async (id: string) =>
    (
      await t.db
        .select({ pac: cfdiStampAttempts.pac, outcome: cfdiStampAttempts.outcome })
        .from(cfdiStampAttempts)
        .where(eq(cfdiStampAttempts.cfdiId, id))
        .orderBy(asc(cfdiStampAttempts.id))
    ).map((a) => `${a.pac}:${a.outcome}`);
  return { t, live, finkok, sw, attempts };
}

describe('live stamping through two PACs', () => {
  test('the first refuses before anything is sent (provider side): the second stamps at once, 201; every attempt is recorded', async () => {
    const { t, live, finkok, sw, attempts } = await setup();
    finkok.script.push('provider');
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(201);
    expect([finkok.calls, sw.calls]).toEqual([1, 1]);
    expect(await attempts(res.json.id)).toEqual(['finkok:sent', 'finkok:provider', 'sw:sent', 'sw:stamped']);
    // It records the PAC that stamped it, and its cancellation goes there, not to the first PAC.
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json.pac).toBe('sw');
    expect((await t.call('GET', '/cfdis?pac=sw', { token: live })).json.data.map((c: { id: string }) => c.id)).toEqual([res.json.id]);
    const cancel = await t.call('POST', `/cfdis/${res.json.id}/cancel`, { token: live, body: { motivo: '02' } });
    expect(cancel.status).toBeLessThan(300);
    expect([finkok.cancelled.length, sw.cancelled.length]).toEqual([0, 1]);
    expect(sw.cancelled[0]!.uuid).toBe(res.json.uuid);
  });

  test('a definitive answer of the first is the answer (422): the second is never asked', async () => {
    const { t, live, finkok, sw } = await setup();
    finkok.script.push('definitive');
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(422);
    expect(res.json.error.details).toEqual([{ field: 'pac', issue: '302: Sello mal formado o inválido' }]);
    expect([finkok.calls, sw.calls]).toEqual([1, 0]);
  });

  test('an ambiguous answer keeps the document with the first PAC for PAC_AMBIGUOUS_WINDOW_SECONDS, then the second stamps it', async () => {
    const { t, live, finkok, sw, attempts } = await setup();
    finkok.script.push('ambiguous', 'ambiguous', 'ambiguous');
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(202);
    // Retries inside the window: the first PAC only, with the same bytes.
    for (let i = 0; i < 2; i++) {
      t.clock.advance(15_000);
      await t.app.worker.drain();
    }
    expect([finkok.calls, sw.calls]).toEqual([3, 0]);
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json.status).toBe('en_cola');
    // Past the window from its first ambiguous answer: the second PAC.
    t.clock.advance(WINDOW_MS);
    await t.app.worker.drain();
    expect(sw.calls).toBe(1);
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json.status).toBe('vigente');
    expect((await attempts(res.json.id)).slice(-2)).toEqual(['sw:sent', 'sw:stamped']);
  });

  test('a PAC left behind after failover that stamped too: its stamp is cancelled with motivo 02, reported by event and audit entry; the UUID answered stays', async () => {
    const { t, live, finkok, sw } = await setup();
    finkok.script.push('stamped_silently');
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(202);
    t.clock.advance(WINDOW_MS + 1000);
    await t.app.worker.drain();
    const stamped = (await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json;
    expect(stamped.status).toBe('vigente');
    expect(sw.calls).toBe(1);
    // The check of the PAC left behind runs a few seconds after the stamp.
    t.clock.advance(10_000);
    await t.app.worker.drain();
    expect(finkok.cancelled).toHaveLength(1);
    const [request] = finkok.cancelled;
    expect(request!.uuid).not.toBe(stamped.uuid);
    expect(request!.motivo).toBe('02');
    expect(request!.signedXml).toContain('Motivo="02"');
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json).toMatchObject({ status: 'vigente', uuid: stamped.uuid });
    const reported = await t.query<{ type: string; data: string }>(sql`select type, data from events where type = ${'cfdi.duplicate_stamp_cancelled'}`);
    expect(reported.map((e) => JSON.parse(e.data))).toEqual([
      expect.objectContaining({ cfdi_id: res.json.id, uuid: stamped.uuid, duplicate_uuid: request!.uuid, pac: 'finkok' }),
    ]);
    const audit = await t.call('GET', '/audit-log', { token: live });
    expect(audit.json.data).toContainEqual(
      expect.objectContaining({ actor: { type: 'system', id: 'pac-failover' }, action: 'cancelDuplicateStamp', resource: { type: 'cfdis', id: res.json.id } }),
    );
    // Once: later sweeps find nothing new.
    t.clock.advance(60_000);
    await t.app.worker.drain();
    expect(finkok.cancelled).toHaveLength(1);
  });

  test('a PAC left behind that does not answer has not said no: it is asked again past the first 30 s, and its stamp is found once it answers', async () => {
    const { t, live, finkok, sw } = await setup();
    finkok.script.push('stamped_silently');
    finkok.recoverDown = true;
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(202);
    t.clock.advance(WINDOW_MS + 1000);
    await t.app.worker.drain();
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json).toMatchObject({ status: 'vigente', pac: 'sw' });
    expect(sw.calls).toBe(1);
    // Ten minutes of an outage: asked again and again, nothing found, nothing given up.
    for (let i = 0; i < 20; i++) {
      t.clock.advance(30_000);
      await t.app.worker.drain();
    }
    expect(finkok.cancelled).toHaveLength(0);
    finkok.recoverDown = false;
    t.clock.advance(300_000);
    await t.app.worker.drain();
    expect(finkok.cancelled.map((c) => c.motivo)).toEqual(['02']);
  });

  test('a late answer after failover (the first PAC answers once the second has stamped): the first UUID stays, the late one is cancelled', async () => {
    const { t, live, finkok } = await setup();
    finkok.script.push('held');
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(202); // past the budget, the attempt still in flight: recorded as sent to finkok
    // Past the window from when its answer could no longer come (15 s after it left).
    t.clock.advance(15_000 + WINDOW_MS + 1000);
    await t.app.worker.drain();
    const stamped = (await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json;
    expect(stamped).toMatchObject({ status: 'vigente', pac: 'sw' });
    finkok.release();
    await until(async () => (await t.query(sql`select 1 from cfdi_duplicate_stamps`)).length === 1, 'the late stamp recorded as a duplicate');
    await t.app.worker.drain();
    expect(finkok.cancelled.map((c) => [c.motivo, c.uuid === stamped.uuid])).toEqual([['02', false]]);
    expect((await t.call('GET', `/cfdis/${res.json.id}`, { token: live })).json).toMatchObject({ status: 'vigente', uuid: stamped.uuid, pac: 'sw' });
  });

  test('two attempts at once (the queued job and the synchronous one, or a job taken over): one that read the history before the other recorded sends nothing', async () => {
    const { t, live, finkok, sw, attempts } = await setup();
    finkok.script.push('provider');
    sw.script.push('provider');
    const res = await t.call('POST', '/cfdis', { token: live, body: ingreso() });
    expect(res.status).toBe(202);
    const id = res.json.id as string;
    const before = await attempts(id);
    const tenantId = (await t.query<{ tenant_id: string }>(sql`select tenant_id from cfdis where id = ${id}`))[0]!.tenant_id;
    let sent = 0;
    // The other caller's `sent` lands after this call read the history and before its own request would leave.
    const racing: PacRouter = {
      async stamp(_xml, _options, _history, record) {
        await t.db.insert(cfdiStampAttempts).values({ cfdiId: id, tenantId, pac: 'sw', outcome: 'sent', at: new Date().toISOString() });
        await record!({ pac: 'finkok', outcome: 'sent', at: new Date().toISOString() });
        sent++;
        return { result: { ok: false, class: 'provider', message: 'unreachable' }, pac: undefined, attempts: [] };
      },
      states: () => [],
      healthy: () => true,
      pac: () => undefined,
    };
    await expect(routedStamper(t.db, racing, cfdiStampAttemptLog).stamp({ id, tenantId }, '<cfdi/>', { tenantId })).rejects.toBeInstanceOf(StampInFlight);
    expect(sent).toBe(0);
    expect(await attempts(id)).toEqual([...before, 'sw:sent']);
    // Alone, the same call records its `sent` and goes on.
    const alone: PacRouter = {
      ...racing,
      async stamp(_xml, _options, _history, record) {
        await record!({ pac: 'finkok', outcome: 'sent', at: new Date().toISOString() });
        return { result: { ok: false, class: 'provider', message: 'down' }, pac: undefined, attempts: [] };
      },
    };
    await routedStamper(t.db, alone, cfdiStampAttemptLog).stamp({ id, tenantId }, '<cfdi/>', { tenantId });
    expect(await attempts(id)).toEqual([...before, 'sw:sent', 'finkok:sent']);
  });
});
