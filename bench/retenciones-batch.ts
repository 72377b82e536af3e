/**
 * POST /retenciones/batch (issue 41, acceptance 3): a platform's month of Servicios de Plataformas Tecnológicas
 * retenciones, `--items` sellers per call, against sandbox POST /cfdis (bench:cfdis' 10-concepto invoice at
 * concurrency 8), in one run on one service as `npm start` runs it (src/index.ts, SQLite, SQLITE_SYNCHRONOUS=full):
 * the ratio of documents per second is what is compared, never figures of two runs (docs/benchmarks.md). Rounds
 * alternate the two, so that the machine's drift falls on both; every batch uses fresh keys (each item issues).
 *
 *   bun bench/retenciones-batch.ts [--items 1000] [--rounds 3] [--seconds 5]
 */
import { parseArgs } from 'node:util';
import { rfcCheckDigit } from '../src/cfdi/rules/rfc.ts';
import { RetencionExamples } from '../src/invoices/retenciones/examples.ts';
import { INVOICE } from './invoice.ts';
import { closedLoad, errorsText } from './load.ts';
import { startService } from './service.ts';

const { values } = parseArgs({
  options: { items: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '5' } },
});
const ITEMS = Number(values.items);
const ROUNDS = Number(values.rounds);
const seconds = Number(values.seconds);
const log = (s: string) => console.error(s);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A persona física's RFC with SAT's check digit, distinct for each n. */
function sellerRfc(n: number): string {
  const letters = Array.from({ length: 4 }, (_, i) => String.fromCharCode(65 + (Math.floor(n / 26 ** i) % 26))).join('');
  const base = `${letters}8501${String((n % 28) + 1).padStart(2, '0')}A1`;
  return base + rfcCheckDigit(base);
}

const template = RetencionExamples.retencion_plataformas_tecnologicas.value;
function batch(round: number) {
  return {
    items: Array.from({ length: ITEMS }, (_, n) => {
      const precio = String(1000 + n);
      return {
        ...template,
        idempotency_key: `bench-${round}-${n}`,
        receptor: { nacionalidad: 'Nacional', rfc: sellerRfc(n), nombre: `VENDEDOR ${n}`, domicilio_fiscal: '01000' },
        totales: { monto_tot_operacion: precio, monto_tot_grav: precio },
        impuestos_retenidos: template.impuestos_retenidos.map((i) => ({ ...i, base_ret: precio })),
        plataformas_tecnologicas: {
          periodicidad: '04',
          servicios: [
            {
              forma_pago_serv: '03',
              tipo_de_serv: '01',
              fecha_serv: '2026-10-05',
              precio_serv_sin_iva: precio,
              impuestos_trasladados: { tasa_cuota: '0.16' },
              comision_del_servicio: { base: precio, porcentaje: '0.1' },
            },
          ],
        },
      };
    }),
  };
}

const service = await startService({});
const json = { ...service.headers, 'content-type': 'application/json' };
const invoicePost = { method: 'POST', headers: json, body: JSON.stringify(INVOICE) };
const cfdiRuns: number[] = [];
const batchRuns: { docsPerSecond: number; ms: number; bytes: number }[] = [];
try {
  await closedLoad({ urlOf: () => `${service.url}/cfdis`, init: invoicePost, expected: 201, concurrency: 8, durationMs: 2000 }); // warm-up
  const warm = await fetch(`${service.url}/retenciones/batch`, { method: 'POST', headers: json, body: JSON.stringify(batch(-1)) });
  if (warm.status !== 200) throw new Error(`batch warm-up: ${warm.status} ${await warm.text()}`);
  for (let round = 0; round < ROUNDS; round++) {
    const r = await closedLoad({ urlOf: () => `${service.url}/cfdis`, init: invoicePost, expected: 201, concurrency: 8, durationMs: seconds * 1000 });
    if (r.errors > 0) throw new Error(`POST /cfdis: ${errorsText(r)}`);
    cfdiRuns.push(r.rps);
    const body = JSON.stringify(batch(round));
    const started = performance.now();
    const res = await fetch(`${service.url}/retenciones/batch`, { method: 'POST', headers: json, body });
    const answer = (await res.json()) as { created: number };
    const ms = performance.now() - started;
    if (res.status !== 200 || answer.created !== ITEMS) throw new Error(`batch: ${res.status} ${JSON.stringify(answer).slice(0, 500)}`);
    batchRuns.push({ docsPerSecond: (ITEMS / ms) * 1000, ms, bytes: body.length });
    log(`round ${round + 1}: POST /cfdis c=8 ${fmt(r.rps)} invoices/s; batch of ${ITEMS} in ${fmt(ms)} ms = ${fmt((ITEMS / ms) * 1000)} documents/s`);
  }
} finally {
  await service.stop();
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const cfdis = mean(cfdiRuns);
const docs = mean(batchRuns.map((b) => b.docsPerSecond));
console.log(
  [
    `Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${ROUNDS} rounds, POST /cfdis ${seconds} s at concurrency 8, one batch of ${ITEMS} per round (${fmt(batchRuns[0]!.bytes / 1024)} KiB)`,
    '',
    '| round | POST /cfdis c=8 | POST /retenciones/batch | batch ÷ cfdis |',
    '|---:|---:|---:|---:|',
    ...batchRuns.map(
      (b, i) =>
        `| ${i + 1} | ${fmt(cfdiRuns[i]!)} invoices/s | ${fmt(b.docsPerSecond)} documents/s (${fmt(b.ms)} ms) | ${((b.docsPerSecond / cfdiRuns[i]!) * 100).toFixed(1)} % |`,
    ),
    `| mean | ${fmt(cfdis)} invoices/s | ${fmt(docs)} documents/s | ${((docs / cfdis) * 100).toFixed(1)} % |`,
  ].join('\n'),
);
