import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { RECEIPT_HOLD_MS } from '../../../src/invoices/receipts/ledger.ts';
import { createSandboxPac } from '../../../src/pac/sandbox.ts';
import type { Pac, StampOptions, StampResult } from '../../../src/pac/types.ts';
import { concepto, createTestApp, eventReceiver, ICV, issuer, testSandboxSat, until } from '../../helpers.ts';

type Answer = 'ok' | 'down';

/**
 * A live PAC over the network whose attempts wait until the test answers them: the synchronous attempt of an invoice
 * outlives its budget (202) and is still in flight when the CFDI is withdrawn.
 */
function gatedPac() {
  const sandbox = createSandboxPac(testSandboxSat());
  const waiting: ((answer: Answer) => void)[] = [];
  const settled: Promise<StampResult>[] = [];
  const pac: Pac = {
    ...sandbox,
    name: 'gated',
    inProcess: false,
    stamp(xml: string, options: StampOptions): Promise<StampResult> {
      const result = new Promise<Answer>((resolve) => waiting.push(resolve)).then((answer): Promise<StampResult> | StampResult =>
        answer === 'ok' ? sandbox.stamp(xml, options) : { ok: false, class: 'provider', message: 'provider down' },
      );
      settled.push(result);
      return result;
    },
  };
  /** Answers the oldest attempt in flight and waits until its answer has been handled. */
  const answer = async (a: Answer) => {
    await until(() => waiting.length > 0, 'an attempt in flight');
    waiting.shift()!(a);
    await settled.shift();
  };
  /** Answers every attempt from now on at once. */
  const answerAll = (a: Answer) => {
    pac.stamp = async (xml, options) => (a === 'ok' ? sandbox.stamp(xml, options) : { ok: false, class: 'provider', message: 'provider down' });
  };
  return { pac, answer, answerAll };
}

async function setup() {
  const gated = gatedPac();
  const t = await createTestApp({ livePacs: [gated.pac], wakeOnEnqueue: false, webhookAllowPrivate: true });
  const { live } = await issuer(t, { keys: ['test', 'live'], csd: ['test', 'live'] });
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { token: live, body });
  const receipt = async () => {
    const res = await call('POST', '/receipts', { forma_pago: '01', conceptos: [concepto()] });
    expect(res.status).toBe(201);
    return res.json as { id: string; fecha: string };
  };
  /** A receipt invoiced to its customer, answered 202 (the PAC has not answered), then withdrawn. */
  const queuedThenWithdrawn = async () => {
    const r = await receipt();
    const queued = await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV });
    expect(queued.status).toBe(202);
    expect((await call('POST', `/cfdis/${queued.json.id}/withdraw`)).status).toBe(200);
    expect((await call('GET', `/cfdis/${queued.json.id}`)).json.status).toBe('fallido');
    return { receipt: r, cfdiId: queued.json.id as string };
  };
  const receiptOf = async (id: string) => (await call('GET', `/receipts/${id}`)).json;
  return { t, call, receipt, queuedThenWithdrawn, receiptOf, ...gated };
}

describe('a withdrawn CFDI of a receipt (docs/decisions.md, "One CFDI lifecycle")', () => {
  test('the attempt in flight fails: the receipt is held until it has settled, then invoiceable again and in the global invoice', async () => {
    const { t, call, queuedThenWithdrawn, receiptOf, answer, answerAll } = await setup();
    const first = await queuedThenWithdrawn();
    const second = await queuedThenWithdrawn();
    // Held: an attempt may still be in flight and stamp it.
    expect(await receiptOf(first.receipt.id)).toMatchObject({ status: 'invoiced', cfdi_id: first.cfdiId });
    await answer('down');
    await answer('down');
    await t.app.worker.drain();
    expect((await receiptOf(first.receipt.id)).status).toBe('invoiced');

    // Past the longest an attempt in flight can take, the receipts are given back.
    t.clock.advance(RECEIPT_HOLD_MS);
    await t.app.worker.drain();
    expect(await receiptOf(first.receipt.id)).toMatchObject({ status: 'open', cfdi_id: null });
    expect(await receiptOf(second.receipt.id)).toMatchObject({ status: 'open', cfdi_id: null });

    answerAll('ok');
    const again = await call('POST', `/receipts/${first.receipt.id}/invoice`, { receptor: ICV });
    expect(again.status).toBe(201);
    expect(again.json.receipt_id ?? (await call('GET', `/cfdis/${again.json.id}`)).json.receipt_id).toBe(first.receipt.id);
    const day = second.receipt.fecha.slice(0, 10);
    const global = await call('POST', '/receipts/global-invoice', { periodicidad: '01', desde: day, hasta: day });
    expect(global.status).toBe(201);
    expect((await call('GET', `/receipts?cfdi_id=${global.json.id}`)).json.data.map((r: { id: string }) => r.id)).toEqual([second.receipt.id]);
  }, 30_000);

  test('the attempt in flight stamps: the CFDI is vigente and keeps the receipt, also after the hold', async () => {
    const { t, call, queuedThenWithdrawn, receiptOf, answer } = await setup();
    const { receipt, cfdiId } = await queuedThenWithdrawn();
    await answer('ok');
    // The late answer is recorded after it settles, in a transaction of its own.
    await until(async () => (await call('GET', `/cfdis/${cfdiId}`)).json.status === 'vigente', 'the late stamp recorded');
    expect((await call('GET', `/cfdis/${cfdiId}`)).json).toMatchObject({ status: 'vigente', pac: 'gated', receipt_id: receipt.id });
    t.clock.advance(RECEIPT_HOLD_MS);
    await t.app.worker.drain();
    expect(await receiptOf(receipt.id)).toMatchObject({ status: 'invoiced', cfdi_id: cfdiId });
    expect((await call('POST', `/receipts/${receipt.id}/invoice`, { receptor: ICV })).status).toBe(409);
    const moves = await t.query<{ from_status: string; to_status: string }>(
      sql`select from_status, to_status from cfdi_status_changes where cfdi_id = ${cfdiId} order by id`,
    );
    expect(moves).toEqual([
      { from_status: 'en_cola', to_status: 'fallido' },
      { from_status: 'fallido', to_status: 'vigente' },
    ]);
  }, 30_000);
});

describe("a receipt's CFDI stamped after its 202", () => {
  // Only an invoice issued by its own request on a path that marks no receipts skips reading them at its stamp.
  test('the late stamp sends cfdi.timbrado naming the receipt, and receipt.invoiced', async () => {
    const { t, call, receipt, answer } = await setup();
    const hooks = eventReceiver();
    try {
      expect((await call('POST', '/webhooks', { url: `http://127.0.0.1:${hooks.port}/`, events: ['cfdi.timbrado', 'receipt.invoiced'] })).status).toBe(201);
      const r = await receipt();
      const queued = await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV });
      expect(queued.status).toBe(202);
      await answer('ok');
      await until(async () => (await call('GET', `/cfdis/${queued.json.id}`)).json.status === 'vigente', 'the late stamp recorded');
      await t.app.worker.drain();
      const got = hooks.received.sort((a, b) => a.event.localeCompare(b.event));
      expect(got.map((e) => e.event)).toEqual(['cfdi.timbrado', 'receipt.invoiced']);
      expect(got[0]!.data).toMatchObject({ cfdi_id: queued.json.id, receipt_id: r.id });
      expect(got[1]!.data).toMatchObject({ receipt_id: r.id, cfdi_id: queued.json.id, invoiced_by: 'self', status: 'invoiced' });
    } finally {
      hooks.stop();
    }
  }, 30_000);
});
