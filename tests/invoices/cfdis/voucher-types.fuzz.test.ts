import { beforeAll, expect, test } from 'bun:test';
import fc from 'fast-check';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { NOMINAS, TRASLADOS } from '../../cfdi/corpus.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';
import { cfdis } from '../../../src/db/schema/index.ts';

/**
 * Bad input never gives a 500: valid P, N and T requests with one leaf replaced by an arbitrary JSON value (or
 * removed) are answered 201 or 400 with the error envelope — never 500, and a 400 never stores anything.
 */
const t = await createTestApp();
let key = '';
const bases: Record<string, unknown>[] = [];

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  const invoice = await t.call('POST', '/cfdis', {
    token: key,
    body: {
      tipo: 'I',
      metodo_pago: 'PPD',
      forma_pago: '99',
      receptor: ICV,
      conceptos: [
        {
          clave_prod_serv: '84111506',
          clave_unidad: 'E48',
          descripcion: 'S',
          cantidad: 1,
          valor_unitario: '1000000',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
      ],
    },
  });
  expect(invoice.status).toBe(201);
  const fecha = localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501');
  bases.push(
    {
      tipo: 'P',
      receptor: { ...ICV, uso_cfdi: 'CP01' },
      pagos: [
        {
          fecha_pago: fecha,
          forma_pago: '03',
          moneda: 'USD',
          tipo_cambio: '17.5',
          monto: '10.00',
          documentos: [
            { uuid: invoice.json.uuid, imp_pagado: '175.00' },
            { uuid: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', imp_pagado: '1.00', moneda: 'EUR', equivalencia: '0.9', imp_saldo_ant: '5', num_parcialidad: 1 },
          ],
        },
      ],
    },
    NOMINAS[6]![1],
    NOMINAS[4]![1],
    TRASLADOS[1]![1],
  );
});

type Json = unknown;
/** Every path to a leaf (or object/array member) of a JSON value. */
function paths(v: Json, at: (string | number)[] = []): (string | number)[][] {
  if (v && typeof v === 'object') return [at, ...Object.entries(v).flatMap(([k, c]) => paths(c, [...at, Array.isArray(v) ? Number(k) : k]))];
  return [at];
}
function replaced(v: Json, path: (string | number)[], value: Json | typeof REMOVE): Json {
  if (path.length === 0) return value === REMOVE ? undefined : value;
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    if (rest.length === 0 && value === REMOVE) copy.splice(head as number, 1);
    else copy[head as number] = replaced(copy[head as number], rest, value);
    return copy;
  }
  const copy = { ...(v as Record<string, Json>) };
  if (rest.length === 0 && value === REMOVE) delete copy[head as string];
  else copy[head as string] = replaced(copy[head as string], rest, value);
  return copy;
}
const REMOVE = Symbol('remove');
const odd = fc.oneof(
  fc.constant(REMOVE),
  fc.constant(null),
  fc.constant(''),
  fc.constant('0'),
  fc.constant(0),
  fc.constant(-1),
  fc.constant('-5.00'),
  fc.constant('1e400'),
  fc.constant(1e21),
  fc.constant('0.0000000001'),
  fc.constant('99999999999999999999'),
  fc.constant('XXX'),
  fc.constant('MXN'),
  fc.constant('USD'),
  fc.constant('99'),
  fc.constant('2026-02-30'),
  fc.constant('2026-11-21T25:00:00'),
  fc.constant([]),
  fc.constant({}),
  fc.constant(true),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: false }),
);

test('mutated P, N and T requests: 201 or 400 with the envelope, never a 500', async () => {
  let created = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(fc.nat(), fc.nat(), odd, async (which, where, value) => {
      const base = bases[which % bases.length]!;
      const all = paths(base).filter((p) => p.length > 0);
      const body = replaced(base, all[where % all.length]!, value);
      const before = await t.count(cfdis);
      const res = await t.call('POST', '/cfdis', { token: key, body });
      if (res.status === 201) {
        created++;
        return;
      }
      expect(res.status).toBe(400);
      expect(res.json.error.details.length).toBeGreaterThan(0);
      expect(await t.count(cfdis)).toBe(before);
      refused++;
    }),
    { numRuns: 400, seed: 9 },
  );
  // The mutations reach both outcomes (a property that only ever sees 400s would prove little).
  expect(created).toBeGreaterThan(10);
  expect(refused).toBeGreaterThan(100);
}, 120_000);
