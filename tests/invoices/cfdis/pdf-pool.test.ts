import { beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { PdfPool } from '../../../src/invoices/cfdis/pdf-pool.ts';
import { statusOf } from '../../../src/lib/errors.ts';
import { ServiceError } from '../../../src/lib/service-error.ts';
import { createTestApp, ICV, issuer, READY, until } from '../../helpers.ts';
import { heldPool } from './held-pool.ts';

/**
 * Issue 19 (9): PDFs render on a bounded pool of worker threads. While a 2,000-concepto PDF renders, the API keeps
 * answering; no more than the pool's size render at once; a full queue answers 503 with Retry-After.
 * Issue 35 (4): one tenant flooding the pool is refused 429 past its share; another tenant's PDF is still served.
 */
// Two threads, eight waiting in all: one tenant renders on one thread with four more waiting.
const held = heldPool(2, 8);
const pool = held.pool;
const t = await createTestApp({ pdfPool: pool });
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const concepto = (i: number) => ({
  clave_prod_serv: '84111506',
  clave_unidad: 'E48',
  descripcion: `Servicio de mantenimiento número ${i} del equipo de cómputo`,
  cantidad: 1,
  valor_unitario: 100 + i,
  impuestos: iva16,
});
let key = '';
let big = '';
let small = '';

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  const issue = async (n: number) => {
    const res = await t.call('POST', '/cfdis', {
      token: key,
      body: { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: Array.from({ length: n }, (_, i) => concepto(i)) },
    });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.json.uuid as string;
  };
  big = await issue(2000);
  small = await issue(1);
}, 120_000);

const pdf = async (uuid: string): Promise<Response> => t.app.request(`/api/v1/cfdis/${uuid}/pdf`, { headers: { authorization: `Bearer ${key}` } });

describe('PDF rendering off the event loop', () => {
  test('while a 2,000-concepto PDF renders, GET /health answers in a small fraction of the render time', async () => {
    await pdf(small); // the worker threads are started and their fonts parsed
    // The event loop's longest stall: the longest time between two answers of a /health asked for in a loop.
    const measure = async () => {
      const started = performance.now();
      let rendered = 0;
      const rendering = pdf(big).then(async (res) => {
        expect(res.status).toBe(200);
        expect((await res.bytes()).length).toBeGreaterThan(100_000);
        rendered = performance.now() - started;
      });
      const answered = [started];
      while (!rendered) {
        const health = await t.call('GET', '/health');
        expect(health.status).toBe(200);
        if (!rendered) answered.push(performance.now());
        await Bun.sleep(5);
      }
      await rendering;
      answered.push(started + rendered);
      return { rendered, answers: answered.length, stall: Math.max(...answered.slice(1).map((at, i) => at - answered[i]!)) };
    };
    // Rendering on the event loop stalls /health for most of the render on every attempt; a machine busy with
    // other work can stall one attempt by itself, so the best of three decides. Each attempt renders: no cached PDF.
    const uncached = async () => {
      await t.exec(sql`DELETE FROM cfdi_pdfs`);
      return measure();
    };
    let best = await uncached();
    for (let attempt = 1; attempt < 3 && best.stall >= best.rendered / 5; attempt++) best = await uncached();
    expect(best.answers).toBeGreaterThan(10);
    expect(best.stall).toBeLessThan(best.rendered / 5);
  }, 60_000);

  test(`at most ${pool.size} PDFs render at once; the others wait their turn and are all served`, async () => {
    const xml = await (await t.app.request(`/api/v1/cfdis/${small}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
    pool.peak = 0;
    // Each render its own owner (tenant), so none is over its share.
    const pdfs = await Promise.all(Array.from({ length: 3 * pool.size + 1 }, (_, i) => pool.render(xml, { sandbox: true }, `ten_${i}`)));
    for (const bytes of pdfs) expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
    expect(pool.peak).toBe(pool.size);
    expect(pool.running).toBe(0);
  }, 60_000);

  test('beyond the waiting room, a render is refused with 503 and Retry-After; the queued ones still finish', async () => {
    const xml = await (await t.app.request(`/api/v1/cfdis/${small}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
    const pool = new PdfPool(1, 1);
    try {
      const first = pool.render(xml, { sandbox: true }, 'ten_a');
      const second = pool.render(xml, { sandbox: true }, 'ten_b');
      const third = await pool.render(xml, { sandbox: true }, 'ten_c').catch((err: unknown) => err);
      expect(third).toBeInstanceOf(ServiceError);
      expect(statusOf((third as ServiceError).kind, 'invoices')).toBe(503);
      expect((third as ServiceError).retryAfterSeconds).toBe(2);
      expect((third as ServiceError).details[0]!.field).toBe('pdf');
      for (const bytes of await Promise.all([first, second])) expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
      expect(pool.peak).toBe(1);
    } finally {
      pool.close();
    }
  }, 60_000);

  test('a render past its deadline is stopped: 503 with Retry-After, its thread replaced, the next render served', async () => {
    const xml = await (await t.app.request(`/api/v1/cfdis/${big}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
    const pool = new PdfPool(1, 1, 50); // the 2,000-concepto invoice takes far longer than 50 ms
    try {
      const late = await pool.render(xml, { sandbox: true }, 'ten_a').catch((err: unknown) => err);
      expect(late).toBeInstanceOf(ServiceError);
      expect(statusOf((late as ServiceError).kind, 'invoices')).toBe(503);
      expect((late as ServiceError).retryAfterSeconds).toBe(2);
      expect(pool.running).toBe(0);
      pool.timeoutMs = 60_000;
      const served = await pool.render(xml, { sandbox: true }, 'ten_a'); // on the thread that replaced the stopped one
      expect(new TextDecoder().decode(served.subarray(0, 5))).toBe('%PDF-');
    } finally {
      pool.close();
    }
  }, 60_000);
});

describe('one PDF pool for all (issue 35)', () => {
  test("a tenant flooding the pool is refused 429 past its share; another tenant's PDF is still rendered and served", async () => {
    const other = await issuer(t, READY);
    const theirs = await t.call('POST', '/cfdis', { token: other.key, body: { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [concepto(1)] } });
    expect(theirs.status).toBe(201);
    await t.exec(sql`DELETE FROM cfdi_pdfs`); // every request below misses the cache and asks the pool
    held.hold();
    try {
      // Twelve at once of one tenant (the 2 threads and 8 waiting places would all be theirs were it not for the share).
      const flood = Array.from({ length: 12 }, () => pdf(small));
      const refused: Response[] = [];
      for (const answer of flood) answer.then((res) => res.status !== 200 && refused.push(res));
      await until(() => pool.running + pool.queued + refused.length === 12, 'every request of the flood reached the pool');
      expect(pool.running).toBe(1); // one thread is left to the others
      expect(pool.queued).toBe(4);
      expect(refused.map((r) => r.status)).toEqual(Array(7).fill(429));
      const refusal = (await refused[0]!.json()) as any;
      expect(refused[0]!.headers.get('retry-after')).toBe('2');
      expect(refusal.error.details[0].field).toBe('pdf');
      // The other tenant's render takes the thread left: it runs while the flood waits.
      const served = t.app.request(`/api/v1/cfdis/${theirs.json.uuid}/pdf`, { headers: { authorization: `Bearer ${other.key}` } });
      await until(() => pool.running === 2, "the other tenant's render started");
      held.release();
      const res = await served;
      expect(res.status).toBe(200);
      expect(new TextDecoder().decode((await res.bytes()).subarray(0, 5))).toBe('%PDF-');
      expect((await Promise.all(flood)).filter((r) => r.status === 200)).toHaveLength(5);
    } finally {
      held.release();
    }
  }, 60_000);

  test('a second GET of the same PDF is not rendered again', async () => {
    await t.exec(sql`DELETE FROM cfdi_pdfs`);
    const before = pool.started;
    const first = await pdf(small);
    expect(first.status).toBe(200);
    expect(pool.started).toBe(before + 1);
    const second = await pdf(small);
    expect(second.status).toBe(200);
    expect(pool.started).toBe(before + 1);
    expect(Buffer.from(await second.bytes()).equals(Buffer.from(await first.bytes()))).toBe(true);
  }, 60_000);
});
