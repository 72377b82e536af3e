/**
 * Invoice PDFs (issue 7): how fast a stamped invoice's printed representation renders, on one core (one thread),
 * for the benchmark's 10-concepto invoice and a 300-concepto one (target: a 10-concepto PDF in under 20 ms).
 *  1. renderCfdiPdf on the stored XML, back to back;
 *  2. GET /api/v1/cfdis/:uuid/pdf through the whole app in process (credential, tenant, load, and the PDF cache: the
 *     first GET renders, the others read the stored PDF).
 *
 *   bun bench/pdf.ts [--seconds 5]
 */
import { parseArgs } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { renderCfdiPdf, useNativeDeflate } from '../src/cfdi/pdf.ts';
import { openDatabase } from '../src/db/client.ts';
import { INVOICE } from './invoice.ts';
import { benchApp, benchTenant } from './tenant.ts';

useNativeDeflate(); // as the PDF worker does

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const seconds = Number(values.seconds);
const db = openDatabase(':memory:');
const app = benchApp(db);
const post = async (path: string, body: unknown, token: string) => {
  const res = await app.request(`/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as any;
};
const key = await benchTenant(app, db, 'test');

const big = {
  ...INVOICE,
  conceptos: Array.from({ length: 300 }, (_, i) => ({
    ...INVOICE.conceptos[i % 10]!,
    descripcion: `Servicio de consultoría en facturación electrónica, partida ${i + 1}${i % 10 === 0 ? ': incluye análisis, diseño, implementación y capacitación del personal' : ''}`,
  })),
};
const auth = { headers: { authorization: `Bearer ${key}` } };

for (const [name, body] of [
  ['10 conceptos', INVOICE],
  ['300 conceptos', big],
] as const) {
  const cfdi = await post('/cfdis', body, key);
  const xml = await (await app.request(`/api/v1/cfdis/${cfdi.uuid}/xml`, auth)).text();
  const first = await renderCfdiPdf(xml, { sandbox: true });
  const pages = (await PDFDocument.load(first)).getPageCount();
  const loop = async (once: () => Promise<unknown>) => {
    for (let i = 0; i < 5; i++) await once(); // warm-up
    const times: number[] = [];
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const t0 = performance.now();
      await once();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    return { perSecond: 1000 / mean, mean, p50: times[Math.floor(times.length / 2)]!, p99: times[Math.floor(times.length * 0.99)]! };
  };
  const direct = await loop(() => renderCfdiPdf(xml, { sandbox: true }));
  const http = await loop(async () => {
    const res = await app.request(`/api/v1/cfdis/${cfdi.uuid}/pdf`, auth);
    if (res.status !== 200) throw new Error(`GET pdf: ${res.status}`);
    await res.arrayBuffer();
  });
  const f = (r: typeof direct) => `${r.perSecond.toFixed(1)} PDFs/s, mean ${r.mean.toFixed(1)} ms, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`;
  console.log(`${name} (${pages} page${pages > 1 ? 's' : ''}, ${(first.length / 1024).toFixed(0)} KiB): render ${f(direct)}; GET /pdf (cached) ${f(http)}`);
}
console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, one thread`);
