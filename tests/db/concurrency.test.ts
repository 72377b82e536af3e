import { beforeAll, describe, expect, test } from 'bun:test';
import { localDateTime } from '../../src/cfdi/time.ts';
import { createTestApp, ICV, issuer, READY } from '../helpers.ts';
import { eq, type SQL, sql } from 'drizzle-orm';
import { cfdiCancellations, cfdis } from '../../src/db/schema/index.ts';

/**
 * Issue 20: requests that decide a write on what they read, racing through the async data layer. Each race fires its
 * requests at once (Promise.all), so they interleave at every await: one request's checks run while the other's
 * transaction is being prepared, as two processes on one database would.
 */
const t = await createTestApp();
const CP01 = { ...ICV, uso_cfdi: 'CP01' };
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const invoice = (metodo: 'PPD' | 'PUE') => ({
  tipo: 'I',
  metodo_pago: metodo,
  forma_pago: metodo === 'PPD' ? '99' : '03',
  receptor: ICV,
  conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: 1, valor_unitario: '100.00', impuestos: iva16 }],
});
const pago = (cfdiId: string, importe: string) => ({
  tipo: 'P',
  receptor: CP01,
  pagos: [
    {
      fecha_pago: localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501'),
      forma_pago: '03',
      moneda: 'MXN',
      monto: Number(importe),
      documentos: [{ cfdi_id: cfdiId, imp_pagado: importe }],
    },
  ],
});
let key = '';
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
});

async function issue(body: unknown) {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json as { id: string; uuid: string };
}
/** How many rows a query returns. */
const rowsOf = async (statement: SQL) => (await t.query(statement)).length;

describe('racing requests', () => {
  test('Pagos racing for one PPD invoice never overpay it nor repeat an instalment number', async () => {
    const ppd = await issue(invoice('PPD')); // 116.00
    // Four receipts of 50.00 at once: at most two fit the balance.
    const answers = await Promise.all([1, 2, 3, 4].map(() => t.call('POST', '/cfdis', { token: key, body: pago(ppd.id, '50.00') })));
    const issued = answers.filter((r) => r.status === 201);
    for (const r of answers.filter((a) => a.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.text).toMatch(/imp_pagado|saldo/i);
    }
    expect(issued).toHaveLength(2);
    const rows = await t.query<{ n: number; ant: string; insoluto: string }>(
      sql`select num_parcialidad as n, imp_saldo_ant as ant, imp_saldo_insoluto as insoluto from cfdi_payment_documents where paid_cfdi_id = ${ppd.id} order by num_parcialidad`,
    );
    expect(rows).toEqual([
      { n: 1, ant: '116.00', insoluto: '66.00' },
      { n: 2, ant: '66.00', insoluto: '16.00' },
    ]);
    expect((await t.call('GET', `/cfdis/${ppd.id}`, { token: key })).json).toMatchObject({ saldo_insoluto: 16, parcialidades: 2 });
  });

  test('two cancellations of one invoice at once give one cancellation', async () => {
    const cfdi = await issue(invoice('PUE'));
    const answers = await Promise.all([1, 2].map(() => t.call('POST', `/cfdis/${cfdi.id}/cancel`, { token: key, body: { motivo: '02' } })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await t.count(cfdiCancellations, eq(cfdiCancellations.cfdiId, cfdi.id))).toBe(1);
    const cancelado = await t.query<{ data: string }>(sql`select data from events where type = 'cfdi.cancelado'`);
    expect(cancelado.filter((e) => JSON.parse(e.data).cfdi_id === cfdi.id).length).toBe(1);
  });

  test('a cancellation racing a Pago of the same invoice: either the Pago is refused or the cancellation is', async () => {
    const ppd = await issue(invoice('PPD'));
    const [paid, cancelled] = await Promise.all([
      t.call('POST', '/cfdis', { token: key, body: pago(ppd.id, '10.00') }),
      t.call('POST', `/cfdis/${ppd.id}/cancel`, { token: key, body: { motivo: '02' } }),
    ]);
    expect([paid!.status, cancelled!.status].sort()).toEqual(paid!.status === 201 ? [201, 409] : [200, 400]);
    const status = (await t.call('GET', `/cfdis/${ppd.id}`, { token: key })).json.status;
    const standing = await rowsOf(
      sql`select p.cfdi_id from cfdi_payment_documents p join cfdis c on c.id = p.cfdi_id where p.paid_cfdi_id = ${ppd.id} and c.status not in ('fallido', 'cancelado')`,
    );
    // Never a cancelled invoice with a standing Pago.
    expect(status === 'cancelado' && standing > 0).toBe(false);
  });

  test('one Idempotency-Key used twice at once gives one invoice', async () => {
    const before = await t.count(cfdis);
    const headers = { 'idempotency-key': 'race-1' };
    const [a, b] = await Promise.all([1, 2].map(() => t.call('POST', '/cfdis', { token: key, body: invoice('PUE'), headers })));
    expect([a!.status, b!.status]).toEqual([201, 201]);
    expect(a!.json.id).toBe(b!.json.id);
    expect(await t.count(cfdis)).toBe(before + 1);
  });
});
