import { beforeAll, describe, expect, test } from 'bun:test';
import { PDF_WORKERS, pdfPool, PdfPool } from '../../../src/invoices/cfdis/pdf-pool.ts';
import { statusOf } from '../../../src/lib/errors.ts';
import { ServiceError } from '../../../src/lib/service-error.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';

/**
 * Issue 19 (9): PDFs render on a bounded pool of worker threads. While a 2,000-concepto PDF renders, the API keeps
 * answering; no more than the pool's size render at once; a full queue answers 503 with Retry-After.
 */
const t = await createTestApp();
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
    // other work can stall one attempt by itself, so the best of three decides.
    let best = await measure();
    for (let attempt = 1; attempt < 3 && best.stall >= best.rendered / 5; attempt++) best = await measure();
    expect(best.answers).toBeGreaterThan(10);
    expect(best.stall).toBeLessThan(best.rendered / 5);
  }, 60_000);

  test(`at most ${PDF_WORKERS} PDFs render at once; the others wait their turn and are all served`, async () => {
    pdfPool.peak = 0;
    const answers = await Promise.all(Array.from({ length: 3 * PDF_WORKERS + 1 }, () => pdf(small)));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(pdfPool.peak).toBe(PDF_WORKERS);
    expect(pdfPool.running).toBe(0);
  }, 60_000);

  test('beyond the waiting room, a render is refused with 503 and Retry-After; the queued ones still finish', async () => {
    const xml = await (await t.app.request(`/api/v1/cfdis/${small}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
    const pool = new PdfPool(1, 1);
    try {
      const first = pool.render(xml, { sandbox: true });
      const second = pool.render(xml, { sandbox: true });
      const third = await pool.render(xml, { sandbox: true }).catch((err: unknown) => err);
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
      const late = await pool.render(xml, { sandbox: true }).catch((err: unknown) => err);
      expect(late).toBeInstanceOf(ServiceError);
      expect(statusOf((late as ServiceError).kind, 'invoices')).toBe(503);
      expect((late as ServiceError).retryAfterSeconds).toBe(2);
      expect(pool.running).toBe(0);
      pool.timeoutMs = 60_000;
      const served = await pool.render(xml, { sandbox: true }); // on the thread that replaced the stopped one
      expect(new TextDecoder().decode(served.subarray(0, 5))).toBe('%PDF-');
    } finally {
      pool.close();
    }
  }, 60_000);
});
