import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { concepto, createTestApp, expectStatus, ingreso, issuer, READY } from '../../helpers.ts';

/**
 * GET /stats' retenciones: counts by month of FechaExp and status, exact sums of what was withheld and of the
 * operations of the standing ones; the rest of GET /stats' answer as it was before any retención.
 */
const t = await createTestApp();
const example = (name: keyof typeof RetencionExamples) => structuredClone(RetencionExamples[name].value);
const EMPTY = { total: 0, por_status: {}, monto_tot_ret: 0, monto_tot_operacion: 0, por_mes: [] };

describe('GET /stats: retenciones', () => {
  test('counts and exact amounts by month and status; every other figure unchanged by them; scoped to tenant and environment', async () => {
    const a = await issuer(t, READY);
    const b = await issuer(t, READY);
    expect((await t.call('POST', '/cfdis', { token: a.key, body: ingreso({ conceptos: [concepto({ valor_unitario: '100.00' })] }) })).status).toBe(201);
    const before = expectStatus(await t.api('GET', '/stats', { token: a.key }), 200).json;
    expect(before.retenciones).toEqual(EMPTY);

    // Withheld: 4133.34 (rent), 50000 (dividends), 1050 (platform), and three odd amounts whose float sum is not exact.
    const issued: string[] = [];
    for (const name of ['retencion_arrendamiento', 'retencion_dividendos', 'retencion_plataformas_tecnologicas'] as const)
      issued.push(expectStatus(await t.api('POST', '/retenciones', { token: a.key, body: example(name) }), 201).json.id);
    for (const monto of ['0.10', '0.20', '0.70']) {
      const body = {
        ...example('retencion_arrendamiento'),
        impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '20000', monto_ret: monto, tipo_pago_ret: '04' }],
      };
      issued.push(expectStatus(await t.api('POST', '/retenciones', { token: a.key, body }), 201).json.id);
    }
    // One not standing (the status a cancellation will give it) counts by status and not in the amounts.
    const cancelled = expectStatus(await t.api('POST', '/retenciones', { token: a.key, body: example('retencion_pagos_extranjeros') }), 201).json;
    await t.query(sql`update retenciones set status = 'cancelado' where id = ${cancelled.id}`);

    const after = expectStatus(await t.api('GET', '/stats', { token: a.key }), 200).json;
    const { retenciones: r, ...rest } = after;
    const { retenciones: _, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    const mes = cancelled.fecha_exp.slice(0, 7);
    const operacion = 20000 + 500000 + 10000 + 3 * 20000;
    expect(r).toEqual({
      total: 7,
      por_status: { vigente: 6, cancelado: 1 },
      monto_tot_ret: 55184.34,
      monto_tot_operacion: operacion,
      por_mes: [{ mes, cantidad: 7, por_status: { vigente: 6, cancelado: 1 }, monto_tot_ret: 55184.34, monto_tot_operacion: operacion }],
    });

    // Another tenant, and a month range that leaves them out, see none; the ADMIN's session (test mode) sees the same.
    expect(expectStatus(await t.api('GET', '/stats', { token: b.key }), 200).json.retenciones).toEqual(EMPTY);
    expect(expectStatus(await t.api('GET', '/stats', { token: a.token }), 200).json.retenciones).toMatchObject({ total: 7 });
    expect(expectStatus(await t.api('GET', `/stats?hasta=2000-01`, { token: a.key }), 200).json.retenciones).toEqual(EMPTY);
    expect(expectStatus(await t.api('GET', `/stats?desde=${mes}&hasta=${mes}`, { token: a.key }), 200).json.retenciones.total).toBe(7);
  });
});
