/**
 * Carta Porte 3.1 (issue 23, acceptance 5): issuing a 50-mercancía, 5-destination Traslado by road, and its PDF, on
 * one thread, against references measured in the same run: the 10-concepto Ingreso of the other benches (issued and
 * printed the same way) and the time of an invoice's two RSA signatures on this machine.
 *  1. sandbox POST /api/v1/cfdis through the whole app in process, one request at a time (validation, catalog
 *     checks, the complement, seal, sandbox stamp, storage), in-memory SQLite;
 *  2. renderCfdiPdf on the stored XML, back to back, and GET /api/v1/cfdis/:uuid/pdf through the app (served from the
 *     PDF cache after its first render).
 *
 *   bun bench/cartaporte.ts [--seconds 3] [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { renderCfdiPdf, useNativeDeflate } from '../src/cfdi/pdf.ts';
import { openDatabase } from '../src/db/client.ts';
import { CARTAS_PORTE } from '../tests/cfdi/cartaporte31/corpus.ts';
import { signaturesPerSecond } from './ceiling.ts';
import { INVOICE } from './invoice.ts';
import { benchApp, benchTenant } from './tenant.ts';

useNativeDeflate(); // as the PDF worker does

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' } } });
const seconds = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const db = openDatabase(':memory:');
const app = benchApp(db);
const key = await benchTenant(app, db, 'test');
const auth = { headers: { authorization: `Bearer ${key}` } };
const post = async (body: unknown) => {
  const res = await app.request('/api/v1/cfdis', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth.headers },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as { uuid: string };
};

// The corpus's five-destination road Traslado (Mexico City → Pachuca → Querétaro → Guadalajara → Querétaro →
// Monterrey), carrying 50 kinds of goods: one concepto per mercancía by the same key, as SAT's instructivo asks.
const fiveDestinations = CARTAS_PORTE.find(([name]) => name.includes('five destinations'))![1] as { carta_porte: Record<string, unknown> };
const GOODS = [
  { bienes_transp: '31201610', descripcion: 'Pegamento blanco en cubetas de 19 l', clave_unidad: 'H87', material_peligroso: false },
  { bienes_transp: '43211503', descripcion: 'Computadoras portátiles', clave_unidad: 'H87' },
  { bienes_transp: '25172504', descripcion: 'Llantas para camioneta', clave_unidad: 'H87' },
  { bienes_transp: '50202306', descripcion: 'Refrescos en botella de 600 ml', clave_unidad: 'XBX' },
  { bienes_transp: '52141501', descripcion: 'Refrigeradores domésticos', clave_unidad: 'H87' },
];
const mercancias = Array.from({ length: 50 }, (_, i) => ({
  ...GOODS[i % GOODS.length]!,
  descripcion: `${GOODS[i % GOODS.length]!.descripcion}, lote ${i + 1}`,
  cantidad: 10 + i,
  peso_en_kg: `${(12.5 * (i + 1)).toFixed(3)}`,
}));
const cartaPorte = {
  tipo: 'T',
  receptor: (fiveDestinations as unknown as { receptor: unknown }).receptor,
  conceptos: mercancias.map((m) => ({
    clave_prod_serv: m.bienes_transp,
    clave_unidad: m.clave_unidad,
    descripcion: m.descripcion,
    cantidad: m.cantidad,
    valor_unitario: 0,
    objeto_imp: '01',
  })),
  carta_porte: { ...fiveDestinations.carta_porte, mercancias },
};

async function loop(once: () => Promise<unknown>) {
  for (let i = 0; i < 10; i++) await once(); // warm-up
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  return { mean: times.reduce((a, b) => a + b, 0) / times.length };
}

const twoSignaturesMs = 2000 / signaturesPerSecond();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const documents = [
  { name: 'Ingreso, 10 conceptos (reference)', body: INVOICE as unknown },
  { name: 'Carta Porte T by road, 50 mercancías, 5 destinos', body: cartaPorte as unknown },
].map((d) => ({ ...d, uuid: '', xml: '', pages: 0, issue: [] as number[], render: [] as number[], http: [] as number[] }));
for (const d of documents) {
  d.uuid = (await post(d.body)).uuid;
  d.xml = await (await app.request(`/api/v1/cfdis/${d.uuid}/xml`, auth)).text();
  d.pages = (await PDFDocument.load(await renderCfdiPdf(d.xml, { sandbox: true }))).getPageCount();
}
// Rounds alternate the two documents, so a machine that slows down mid-run slows both; each figure is the median
// of the rounds' means.
for (let round = 0; round < ROUNDS; round++) {
  for (const d of round % 2 ? [...documents].reverse() : documents) {
    d.issue.push((await loop(() => post(d.body))).mean);
    d.render.push((await loop(() => renderCfdiPdf(d.xml, { sandbox: true }))).mean);
    d.http.push(
      (
        await loop(async () => {
          const res = await app.request(`/api/v1/cfdis/${d.uuid}/pdf`, auth);
          if (res.status !== 200) throw new Error(`GET pdf: ${res.status}`);
          await res.arrayBuffer();
        })
      ).mean,
    );
  }
}
console.log(
  `Two RSA-2048 signatures on this machine, this run: ${twoSignaturesMs.toFixed(2)} ms (Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, one thread; ${ROUNDS} rounds of ${seconds} s per figure, medians)\n`,
);
console.log('| document | XML | POST /cfdis, one at a time | ÷ two signatures | PDF pages | renderCfdiPdf | GET /pdf (cached) |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
const ms = (xs: number[]) => `${median(xs).toFixed(2)} ms`;
for (const d of documents) {
  console.log(
    `| ${d.name} | ${(d.xml.length / 1024).toFixed(0)} KiB | ${ms(d.issue)} | ${(median(d.issue) / twoSignaturesMs).toFixed(2)}× | ${d.pages} | ${ms(d.render)} | ${ms(d.http)} |`,
  );
}
const [reference, cp] = documents as [(typeof documents)[0], (typeof documents)[0]];
console.log(
  `\nThe Carta Porte document costs ${(median(cp.issue) / median(reference.issue)).toFixed(2)}× the reference invoice to issue and ${(median(cp.render) / median(reference.render)).toFixed(2)}× to print.`,
);
