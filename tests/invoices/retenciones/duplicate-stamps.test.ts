import { afterAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { verifyEnveloped } from '../../../src/cfdi/cancellation.ts';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createTestApp, csdFiles, eventReceiver, issuer, READY } from '../../helpers.ts';
import { scriptedPac } from '../../scripted-pac.ts';

/**
 * A retención stamped by one PAC after an earlier PAC answered ambiguously (issue 41): the PAC left behind is asked
 * whether it stamped it too, and its stamp is cancelled there with motivo 02 and reported, as for a CFDI
 * (tests/invoices/cfdis/failover.test.ts).
 */
const receiver = eventReceiver();
afterAll(receiver.stop);

const WINDOW_MS = 60_000;

async function setup(order: 'finkok_first' | 'sw_first' = 'finkok_first') {
  const finkok = scriptedPac('finkok');
  const sw = scriptedPac('sw');
  // SW can be asked for a document's stamp only by its UUID: its adapter has no `recover`.
  (sw as { recover?: unknown }).recover = undefined;
  const asked: string[] = [];
  const recover = finkok.recover;
  finkok.recover = (xml) => {
    asked.push(xml);
    return recover(xml);
  };
  const logged: { level: string; msg: string; [field: string]: unknown }[] = [];
  const logger = createLogger('warn', (line) => logged.push(JSON.parse(line)));
  const livePacs = order === 'finkok_first' ? [finkok, sw] : [sw, finkok];
  const t = await createTestApp({ livePacs, pacAmbiguousWindowMs: WINDOW_MS, wakeOnEnqueue: false, webhookAllowPrivate: true, logger });
  const a = await issuer(t, { ...READY, keys: ['test', 'live'], csd: ['test', 'live'] });
  const issue = async () => {
    const res = await t.call('POST', '/retenciones', { token: a.live, body: structuredClone(RetencionExamples.retencion_arrendamiento.value) });
    expect(res.status).toBe(202);
    return res.json.id as string;
  };
  const get = async (id: string) => (await t.call('GET', `/retenciones/${id}`, { token: a.live })).json;
  const reported = async (id: string) =>
    (await t.query<{ data: string }>(sql`select data from events where type = 'retencion.duplicate_stamp_cancelled' and data like ${`%${id}%`}`)).map((e) =>
      JSON.parse(e.data),
    );
  const duplicates = (id: string) =>
    t.query<{ pac: string; uuid: string; status: string; detail: string | null }>(
      sql`select pac, uuid, status, detail from retencion_duplicate_stamps where retencion_id = ${id}`,
    );
  const checks = () => t.query<{ status: string; payload: string }>(sql`select status, payload from jobs where type = 'retencion.duplicate_check'`);
  /** The first PAC answers ambiguously (having stamped it or not); past the window the second stamps it. */
  const stampAfterFailover = async (id: string) => {
    await t.app.worker.drain();
    expect((await get(id)).status).toBe('en_cola');
    t.clock.advance(WINDOW_MS + 1000);
    await t.app.worker.drain();
    return get(id);
  };
  return { t, a, finkok, sw, asked, logged, issue, get, reported, duplicates, checks, stampAfterFailover };
}

describe('a retención stamped twice after a failover', () => {
  test("the PAC left behind stamped it too: its stamp is found and cancelled there with motivo 02 (cancelacionretencion, signed in the retentions' namespace), reported by event, webhook and audit entry; the UUID first recorded stays", async () => {
    const { t, a, finkok, sw, asked, issue, get, reported, duplicates, stampAfterFailover } = await setup();
    const hook = await t.call('POST', '/webhooks', {
      token: a.live,
      body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['retencion.duplicate_stamp_cancelled'] },
    });
    expect(hook.status).toBe(201);
    finkok.script.push('stamped_silently');
    const id = await issue();
    const stamped = await stampAfterFailover(id);
    expect(stamped).toMatchObject({ status: 'vigente', pac: 'sw' });
    expect([finkok.calls, sw.calls]).toEqual([1, 1]);
    // The check of the PAC left behind runs a few seconds after the stamp, with the sealed document sent to it.
    expect(asked).toEqual([]);
    t.clock.advance(10_000);
    await t.app.worker.drain();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('<retenciones:Retenciones');
    expect(asked[0]).not.toContain('TimbreFiscalDigital');

    expect(finkok.cancelled).toEqual([]);
    expect(sw.cancelledRetenciones).toEqual([]);
    expect(finkok.cancelledRetenciones).toHaveLength(1);
    const [request] = finkok.cancelledRetenciones;
    const duplicateUuid = request!.uuid;
    expect(duplicateUuid).toMatch(/^[0-9A-F-]{36}$/);
    expect(duplicateUuid).not.toBe(stamped.uuid);
    expect(request).toMatchObject({ motivo: '02', rfcEmisor: 'EKU9003173C9', tenantId: a.tenant.id });
    expect(request!.signedXml).toContain('xmlns="http://www.sat.gob.mx/esquemas/retencionpago/1"');
    expect(request!.signedXml).toContain(`<Folio UUID="${duplicateUuid}" Motivo="02"/>`);
    expect(request!.signedXml).toContain('RfcEmisor="EKU9003173C9"');
    // Signed with the issuer's live CSD.
    expect(verifyEnveloped(request!.signedXml, csdFiles('EKU9003173C9_live', 'EKU9003173C9').cer)).toBe(true);

    expect(await get(id)).toMatchObject({ status: 'vigente', uuid: stamped.uuid, pac: 'sw' });
    expect(await duplicates(id)).toEqual([{ pac: 'finkok', uuid: duplicateUuid, status: 'cancelled', detail: 'EstatusUUID 201' }]);
    const report = { retencion_id: id, uuid: stamped.uuid, duplicate_uuid: duplicateUuid, pac: 'finkok' };
    expect(await reported(id)).toEqual([report]);
    await t.app.worker.drain();
    expect(receiver.received.filter((e) => e.event === 'retencion.duplicate_stamp_cancelled' && e.data.retencion_id === id).map((e) => e.data)).toEqual([
      report,
    ]);
    const entry = { actor: { type: 'system', id: 'pac-failover' }, action: 'cancelDuplicateStamp', resource: { type: 'retenciones', id } };
    expect((await t.call('GET', '/audit-log', { token: a.live })).json.data).toContainEqual(expect.objectContaining(entry));
    // The tenant's own: another tenant's audit log and events do not show it.
    const other = await issuer(t, { ...READY, keys: ['live'], csd: [] });
    expect((await t.call('GET', '/audit-log', { token: other.live })).json.data).not.toContainEqual(expect.objectContaining(entry));

    // Once: later drains find nothing new.
    t.clock.advance(60_000);
    await t.app.worker.drain();
    expect(finkok.cancelledRetenciones).toHaveLength(1);
    expect(await reported(id)).toHaveLength(1);
  });

  test('the PAC left behind has no stamp of it: asked until it has said so for 30 s, then the check ends; nothing cancelled or reported', async () => {
    const { t, finkok, sw, asked, issue, get, reported, duplicates, checks, stampAfterFailover } = await setup();
    finkok.script.push('ambiguous');
    const id = await issue();
    expect(await stampAfterFailover(id)).toMatchObject({ status: 'vigente', pac: 'sw' });
    t.clock.advance(10_000);
    await t.app.worker.drain();
    expect(asked).toHaveLength(1);
    // Finkok may not find a stamp for seconds after making it: "none" is believed only 30 s after the check began.
    expect((await checks()).map((j) => j.status)).toEqual(['queued']);
    t.clock.advance(30_000);
    await t.app.worker.drain();
    expect(asked).toHaveLength(2);
    expect((await checks()).map((j) => [j.status, JSON.parse(j.payload).retencion_id, JSON.parse(j.payload).pac])).toEqual([['done', id, 'finkok']]);
    t.clock.advance(300_000);
    await t.app.worker.drain();
    expect(asked).toHaveLength(2);
    expect([finkok.cancelledRetenciones, sw.cancelledRetenciones]).toEqual([[], []]);
    expect(await duplicates(id)).toEqual([]);
    expect(await reported(id)).toEqual([]);
    expect((await get(id)).status).toBe('vigente');
  });

  test('a PAC left behind that cannot be asked without stamping (SW, no `recover`) is not asked, as for a CFDI: its check ends at once, nothing cancelled', async () => {
    const { t, finkok, sw, issue, reported, duplicates, checks, stampAfterFailover } = await setup('sw_first');
    // Past its window SW is asked first again (it cannot be asked otherwise: PAC failover), and is down this time.
    sw.script.push('stamped_silently', 'provider');
    const id = await issue();
    expect(await stampAfterFailover(id)).toMatchObject({ status: 'vigente', pac: 'finkok' });
    expect([sw.calls, finkok.calls]).toEqual([2, 1]);
    t.clock.advance(10_000);
    await t.app.worker.drain();
    expect((await checks()).map((j) => [j.status, JSON.parse(j.payload).pac])).toEqual([['done', 'sw']]);
    expect(sw.calls).toBe(2);
    expect([sw.cancelledRetenciones, finkok.cancelledRetenciones]).toEqual([[], []]);
    expect(await duplicates(id)).toEqual([]);
    expect(await reported(id)).toEqual([]);
  });

  test('the PAC left behind does not cancel Retenciones through this service: the duplicate is kept as failed with what to do, logged at error level; nothing reported', async () => {
    const { t, finkok, issue, logged, reported, duplicates, stampAfterFailover } = await setup();
    finkok.script.push('stamped_silently');
    finkok.cancelRetencion = undefined;
    const id = await issue();
    await stampAfterFailover(id);
    t.clock.advance(10_000);
    await t.app.worker.drain();
    const [duplicate] = await duplicates(id);
    expect(duplicate).toMatchObject({ pac: 'finkok', status: 'failed' });
    expect(duplicate!.detail).toBe(`finkok is not asked to cancel this kind of document here: cancel ${duplicate!.uuid} there by hand`);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'error', msg: 'a duplicate stamp could not be cancelled: cancel it at its PAC by hand' }));
    expect(finkok.cancelled).toEqual([]);
    expect(await reported(id)).toEqual([]);
  });
});
