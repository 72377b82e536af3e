/**
 * PDF memory (issue 19): peak RSS of the process while 8 PDFs of a 2,000-concepto invoice are asked for at once,
 * rendered on the event loop (renderCfdiPdf, as before the pool) or through the worker pool (GET's path now).
 *
 *   bun bench/pdf-memory.ts --mode pool|inline
 */
import { parseArgs } from 'node:util';
import { pdfPool } from '../src/invoices/cfdis/pdf-pool.ts';
import { renderCfdiPdf, useNativeDeflate } from '../src/cfdi/pdf.ts';
import { openDatabase } from '../src/db/client.ts';
import { INVOICE } from './invoice.ts';
import { benchApp, benchTenant } from './tenant.ts';

useNativeDeflate(); // as the PDF worker does

const { values } = parseArgs({ options: { mode: { type: 'string', default: 'pool' } } });
const db = openDatabase(':memory:');
const app = benchApp(db);
const key = await benchTenant(app, db, 'test');
const auth = { authorization: `Bearer ${key}` };
const body = {
  ...INVOICE,
  conceptos: Array.from({ length: 2000 }, (_, i) => ({
    ...INVOICE.conceptos[i % 10]!,
    descripcion: `Servicio de consultoría en facturación electrónica, partida ${i + 1}`,
  })),
};
const res = await app.request('/api/v1/cfdis', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
const xml = await (await app.request(`/api/v1/cfdis/${((await res.json()) as { uuid: string }).uuid}/xml`, { headers: auth })).text();

// Each render its own owner: one owner may queue only a few renders (the pool's fair share).
let renders = 0;
const render =
  values.mode === 'inline' ? (x: string) => renderCfdiPdf(x, { sandbox: true }) : (x: string) => pdfPool.render(x, { sandbox: true }, `bench-${renders++}`);
await render(xml); // warm: fonts parsed, workers started
Bun.gc(true);
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
const t0 = performance.now();
const pdfs = await Promise.all(Array.from({ length: 8 }, () => render(xml)));
const elapsed = performance.now() - t0;
clearInterval(sampler);
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
console.log(`${values.mode}: 8 × ${(pdfs[0]!.length / 1024).toFixed(0)} KiB PDFs in ${elapsed.toFixed(0)} ms; RSS before ${mib(before)}, peak ${mib(peak)}`);
pdfPool.close();
