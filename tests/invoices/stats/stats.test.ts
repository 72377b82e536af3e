import { beforeAll, describe, expect, test } from 'bun:test';
import { concepto, createTestApp, ICV, ingreso, issuer, READY } from '../../helpers.ts';

/**
 * Issue 10, acceptance 2 (correctness; speed is bench/stats.ts): GET /stats against a seeded set of invoices —
 * counts by status, type and month, exact amounts per currency of the standing ones, CSDs, users and keys — scoped
 * to the tenant and the environment.
 */
const t = await createTestApp();
const ingresoOf = (valor: string, over: Record<string, unknown> = {}) => ingreso({ conceptos: [concepto({ valor_unitario: valor })], ...over });
let key = '';
let other = '';
const issue = async (body: unknown, token = key, headers: Record<string, string> = {}) => {
  const res = await t.call('POST', '/cfdis', { token, body, headers });
  return res;
};

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  other = (await issuer(t, READY)).key;
  // Tenant A: 3 MXN invoices (one cancelled), 1 USD, 1 Egreso, 1 Traslado, 1 rejected by the PAC.
  for (const v of ['100.00', '0.10', '333.33']) expect((await issue(ingresoOf(v))).status).toBe(201);
  expect((await issue(ingresoOf('10.00', { moneda: 'USD', tipo_cambio: '17.5' }))).status).toBe(201);
  const toCancel = await issue(ingresoOf('1000.00'));
  expect((await t.call('POST', `/cfdis/${toCancel.json.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
  const e = await issue({
    tipo: 'E',
    forma_pago: '03',
    receptor: { ...ICV, uso_cfdi: 'G02' },
    cfdi_relacionados: [{ tipo_relacion: '01', uuids: [toCancel.json.uuid] }],
    conceptos: ingresoOf('5.00').conceptos,
  });
  expect(e.status).toBe(400); // related to a cancelled invoice: refused, and not counted anywhere
  const first = (await t.call('GET', '/cfdis?limit=1&status=vigente&tipo=I', { token: key })).json.data[0];
  expect(
    (
      await issue({
        tipo: 'E',
        forma_pago: '03',
        receptor: { ...ICV, uso_cfdi: 'G02' },
        cfdi_relacionados: [{ tipo_relacion: '01', uuids: [first.uuid] }],
        conceptos: ingresoOf('5.00').conceptos,
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await issue({
        tipo: 'T',
        receptor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
        conceptos: [{ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Equipo', cantidad: 1, valor_unitario: 0 }],
      })
    ).status,
  ).toBe(201);
  expect((await issue(ingresoOf('50.00'), key, { 'x-sandbox-scenario': 'pac_rejected' })).status).toBe(422);
  // Tenant B (same RFC, another tenant) and tenant A's live environment must not show up.
  expect((await issue(ingresoOf('999.00'), other)).status).toBe(201);
});

describe('GET /stats', () => {
  test('counts by status and type, exact standing amounts per type and currency', async () => {
    const res = await t.call('GET', '/stats', { token: key });
    expect(res.status).toBe(200);
    const s = res.json;
    expect(s.environment).toBe('test');
    expect(s.cfdis.total).toBe(8);
    expect(s.cfdis.por_status).toEqual({ vigente: 6, cancelado: 1, fallido: 1 });
    expect(s.cfdis.por_tipo).toEqual({ I: 6, E: 1, T: 1 });
    // 116.00 + 0.12 (0.10 + 0.016 rounds to 0.12) + 386.66: the cancelled 1,160.00 and the rejected 58.00 do not count.
    expect(s.cfdis.importes).toEqual([
      { tipo: 'E', moneda: 'MXN', total: 5.8 },
      { tipo: 'I', moneda: 'MXN', total: 502.78 },
      { tipo: 'I', moneda: 'USD', total: 11.6 },
      { tipo: 'T', moneda: 'XXX', total: 0 },
    ]);
    expect(s.cfdis.por_mes).toHaveLength(1);
    expect(s.cfdis.por_mes[0]).toMatchObject({ mes: t.clock.now.toISOString().slice(0, 7), cantidad: 8, por_tipo: { I: 6, E: 1, T: 1 } });
    expect(s.csds).toEqual({ total: 1, activos: 1, por_vencer_30_dias: 0 });
    expect(s.usuarios).toEqual({ total: 1, por_rol: { ADMIN: 1 } });
    expect(s.api_keys).toEqual({ activas: 1 });
  });

  test('the amounts agree with the invoices themselves', async () => {
    const list = (await t.call('GET', '/cfdis?limit=100&status=vigente&tipo=I', { token: key })).json.data as { moneda: string; total: number }[];
    const mxn = list.filter((c) => c.moneda === 'MXN').reduce((a, c) => a + Math.round(c.total * 100), 0) / 100;
    const stats = (await t.call('GET', '/stats', { token: key })).json;
    expect(stats.cfdis.importes.find((i: { tipo: string; moneda: string }) => i.tipo === 'I' && i.moneda === 'MXN').total).toBe(mxn);
  });

  test('another tenant sees only its own; a month range filters; a bad month → 400', async () => {
    const b = (await t.call('GET', '/stats', { token: other })).json;
    expect(b.cfdis).toMatchObject({ total: 1, por_status: { vigente: 1 }, importes: [{ tipo: 'I', moneda: 'MXN', total: 1158.84 }] });
    const empty = (await t.call('GET', '/stats?hasta=2000-01', { token: key })).json;
    expect(empty.cfdis).toEqual({ total: 0, por_status: {}, por_tipo: {}, importes: [], por_mes: [] });
    expect((await t.call('GET', '/stats?desde=2026-13', { token: key })).status).toBe(400);
    expect((await t.call('GET', '/stats')).status).toBe(401);
  });
});
