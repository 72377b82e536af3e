/**
 * Voucher types (issue 9): sandbox POST /api/v1/cfdis of each type through the whole app in process, one at a time
 * (credential, validation, balances for a Pago, seal, sandbox stamp, storage), on one thread. Compare with the
 * 10-concepto Ingreso: a Pago also reads each paid invoice's stored XML and balance, a Nómina builds its complement.
 *
 *   bun bench/voucher-types.ts [--seconds 5]
 */
import { parseArgs } from 'node:util';
import { localDateTime } from '../src/cfdi/time.ts';
import { openDatabase } from '../src/db/client.ts';
import { NOMINAS, QUINCENAL, TRABAJADOR } from '../tests/cfdi/corpus.ts';
import { INVOICE } from './invoice.ts';
import { benchApp, benchTenant } from './tenant.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const seconds = Number(values.seconds);
const db = openDatabase(':memory:');
const app = benchApp(db);
const key = await benchTenant(app, db, 'test');
const post = async (body: unknown) => {
  const res = await app.request('/api/v1/cfdis', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; uuid: string };
};

// A pool of PPD invoices the Pagos take in turn, so each is paid a realistic handful of times (SAT allows 999
// instalments, and a balance is summed over an invoice's instalments).
const ppd = { ...INVOICE, metodo_pago: 'PPD', forma_pago: '99' };
const invoices: { id: string }[] = [];
for (let i = 0; i < 2000; i++) invoices.push(await post(ppd));
let next = 0;
const fechaPago = localDateTime(new Date(Date.now() - 3600_000), '42501');
const pago = (n: number) => () => ({
  tipo: 'P',
  receptor: { ...INVOICE.receptor, uso_cfdi: 'CP01' },
  pagos: [
    {
      fecha_pago: fechaPago,
      forma_pago: '03',
      moneda: 'MXN',
      monto: `${n}.00`,
      documentos: Array.from({ length: n }, () => ({ cfdi_id: invoices[next++ % invoices.length]!.id, imp_pagado: '1.00' })),
    },
  ],
});
const traslado = {
  tipo: 'T',
  receptor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
  conceptos: INVOICE.conceptos.map(({ impuestos: _, ...c }) => c),
};

const cases: [string, unknown | (() => unknown)][] = [
  ['I: Ingreso, 10 conceptos', INVOICE],
  ['P: Pago of 1 invoice', pago(1)],
  ['P: Pago of 20 invoices', pago(20)],
  ['N: Nómina quincenal', { tipo: 'N', receptor: TRABAJADOR, nomina: QUINCENAL }],
  ['N: Nómina with horas extra, incapacidad, subcontratación', NOMINAS[6]![1]],
  ['T: Traslado, 10 conceptos', traslado],
];

console.log('| voucher | issued/s (one at a time) | mean latency |');
console.log('|---|---:|---:|');
for (const [name, body] of cases) {
  const make = typeof body === 'function' ? (body as () => unknown) : () => body;
  for (let i = 0; i < 20; i++) await post(make()); // warm-up
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    await post(make());
    n++;
  }
  const elapsed = (performance.now() - t0) / 1000;
  console.log(`| ${name} | ${Math.round(n / elapsed).toLocaleString('en-US')} | ${((elapsed * 1000) / n).toFixed(2)} ms |`);
}
