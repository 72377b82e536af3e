import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { retenciones } from '../../../src/db/schema/index.ts';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { createTestApp, expectStatus, issuer, READY } from '../../helpers.ts';

/**
 * Invalid retenciones through the API, one problem each: 400 naming the field and the rule code of SAT's Matriz de
 * errores de Retenciones 2.0, nothing stored, no folio taken, and POST /retenciones/validate listing the same problem.
 */
const t = await createTestApp();
const a = await issuer(t, READY);

type Body = ReturnType<typeof base>;
const base = () => structuredClone(RetencionExamples.retencion_arrendamiento.value) as Record<string, any>;
const set =
  (path: string, value: unknown) =>
  (b: Body): void => {
    const keys = path.split('.');
    let at = b;
    for (const k of keys.slice(0, -1)) at = at[k];
    at[keys.at(-1)!] = value;
  };
const FIELD_RULE: [string, (b: Body) => void, string, string][] = [
  ['CveRetenc 29', set('cve_retenc', '29'), 'cve_retenc', 'Reten20105'],
  ['CveRetenc 00', set('cve_retenc', '00'), 'cve_retenc', 'Reten20105'],
  ['CveRetenc 30', set('cve_retenc', '30'), 'cve_retenc', 'Reten20105'],
  ['CveRetenc 99', set('cve_retenc', '99'), 'cve_retenc', 'Reten20105'],
  ['CveRetenc 25 without DescRetenc', set('cve_retenc', '25'), 'desc_retenc', 'Reten20106'],
  ['FechaExp with a space', set('fecha_exp', '2026-11-27 10:00:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp 30 February', set('fecha_exp', '2026-02-30T10:00:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp a word', set('fecha_exp', 'noviembre'), 'fecha_exp', 'Reten20103'],
  ['FechaExp hour 25', set('fecha_exp', '2026-11-27T25:00:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp without time', set('fecha_exp', '2026-11-27'), 'fecha_exp', 'Reten20103'],
  ['FechaExp month 13', set('fecha_exp', '2026-13-01T10:00:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp without seconds', set('fecha_exp', '2026-11-27T10:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp minute 60', set('fecha_exp', '2026-11-27T10:60:00'), 'fecha_exp', 'Reten20103'],
  [
    'TipoRelacion 99',
    set('cfdi_reten_relacionados', { tipo_relacion: '99', uuid: '1474b7d3-61fc-41c4-a8b8-3f22e1161bb4' }),
    'cfdi_reten_relacionados.tipo_relacion',
    'Reten20109',
  ],
  [
    'TipoRelacion 00',
    set('cfdi_reten_relacionados', { tipo_relacion: '00', uuid: '1474b7d3-61fc-41c4-a8b8-3f22e1161bb4' }),
    'cfdi_reten_relacionados.tipo_relacion',
    'Reten20109',
  ],
  [
    'TipoRelacion 08',
    set('cfdi_reten_relacionados', { tipo_relacion: '08', uuid: '1474b7d3-61fc-41c4-a8b8-3f22e1161bb4' }),
    'cfdi_reten_relacionados.tipo_relacion',
    'Reten20109',
  ],
  ['CurpR with a persona moral RfcR', (b) => Object.assign(b.receptor, { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' }), 'receptor.rfc', 'Reten20117'],
  ['DomicilioFiscalR 00000', set('receptor.domicilio_fiscal', '00000'), 'receptor.domicilio_fiscal', 'Reten20118'],
  ['DomicilioFiscalR 00100', set('receptor.domicilio_fiscal', '00100'), 'receptor.domicilio_fiscal', 'Reten20118'],
  ['MesIni 13', set('periodo.mes_ini', '13'), 'periodo.mes_ini', 'Reten20121'],
  ['MesIni 00', set('periodo.mes_ini', '00'), 'periodo.mes_ini', 'Reten20121'],
  ['MesFin 00', set('periodo.mes_fin', '00'), 'periodo.mes_fin', 'Reten20123'],
  ['MesFin 13', set('periodo.mes_fin', '13'), 'periodo.mes_fin', 'Reten20123'],
  ['MesIni 12 after MesFin 11', set('periodo.mes_ini', '12'), 'periodo.mes_ini', 'Reten20122'],
  ['MesIni 11 after MesFin 01', set('periodo.mes_fin', '01'), 'periodo.mes_ini', 'Reten20122'],
  ['Ejercicio 2028', set('periodo.ejercicio', '2028'), 'periodo.ejercicio', 'Reten20125'],
  ['Ejercicio 2018', set('periodo.ejercicio', '2018'), 'periodo.ejercicio', 'Reten20125'],
  ['Ejercicio 2030', set('periodo.ejercicio', '2030'), 'periodo.ejercicio', 'Reten20125'],
  [
    'Ejercicio two years before FechaExp',
    (b) => Object.assign(b, { fecha_exp: '2026-11-27T10:00:00', periodo: { ...b.periodo, ejercicio: '2024' } }),
    'periodo.ejercicio',
    'Reten20126',
  ],
  [
    'Ejercicio 2019 for a FechaExp of 2026',
    (b) => Object.assign(b, { fecha_exp: '2026-11-27T10:00:00', periodo: { ...b.periodo, ejercicio: '2019' } }),
    'periodo.ejercicio',
    'Reten20126',
  ],
  ['MontoTotExent 500: grav + exent ≠ operación', set('totales.monto_tot_exent', '500'), 'totales.monto_tot_operacion', 'Reten20127'],
  ['MontoTotExent 1: grav + exent ≠ operación', set('totales.monto_tot_exent', '1'), 'totales.monto_tot_operacion', 'Reten20127'],
  ['MontoTotGrav a cent above the operation', set('totales.monto_tot_grav', '20000.01'), 'totales.monto_tot_grav', 'Reten20128'],
  ['MontoTotGrav 30000 above the operation', set('totales.monto_tot_grav', '30000'), 'totales.monto_tot_grav', 'Reten20128'],
  [
    'MontoTotExent above the operation',
    (b) => Object.assign(b.totales, { monto_tot_grav: '0', monto_tot_exent: '25000' }),
    'totales.monto_tot_exent',
    'Reten20129',
  ],
  [
    'MontoTotRet without ImpRetenidos',
    (b) => Object.assign(b, { impuestos_retenidos: [], totales: { ...b.totales, monto_tot_ret: '4133.34' } }),
    'impuestos_retenidos',
    'Reten20130',
  ],
  [
    'MontoTotRet 100 and no impuestos_retenidos member',
    (b) => {
      delete b.impuestos_retenidos;
      b.totales.monto_tot_ret = '100';
    },
    'impuestos_retenidos',
    'Reten20130',
  ],
  ['MontoTotRet a cent short', set('totales.monto_tot_ret', '4133.33'), 'totales.monto_tot_ret', 'Reten20131'],
  ['MontoTotRet 0 with taxes withheld', set('totales.monto_tot_ret', '0'), 'totales.monto_tot_ret', 'Reten20131'],
  ['MontoTotRet 5000', set('totales.monto_tot_ret', '5000'), 'totales.monto_tot_ret', 'Reten20131'],
  ['UtilidadBimestral 0', set('totales.utilidad_bimestral', '0'), 'totales.utilidad_bimestral', 'Reten20132'],
  ['UtilidadBimestral 0.00', set('totales.utilidad_bimestral', '0.00'), 'totales.utilidad_bimestral', 'Reten20132'],
  ['ISRCorrespondiente 0.00', set('totales.isr_correspondiente', '0.00'), 'totales.isr_correspondiente', 'Reten20133'],
  ['ISRCorrespondiente 0 as a number', set('totales.isr_correspondiente', 0), 'totales.isr_correspondiente', 'Reten20133'],
];

describe('invalid requests: 400 naming the field and the SAT rule, nothing stored, /validate agreeing', () => {
  test('at least 40 of them', () => expect(FIELD_RULE.length).toBeGreaterThanOrEqual(40));

  test.each(FIELD_RULE)('%s', async (_, mutate, field, rule) => {
    const body = base();
    mutate(body);
    const res = await t.call('POST', '/retenciones', { token: a.key, body });
    expect(res.status).toBe(400);
    const details = res.json.error.details as { field: string; issue: string; rule?: string }[];
    expect(details.map((d) => [d.field, d.rule])).toEqual([[field, rule]]);
    expect(details[0]!.issue.length).toBeGreaterThan(0);
    const verdict = await t.call('POST', '/retenciones/validate', { token: a.key, body });
    expect(verdict.status).toBe(200);
    expect(verdict.json).toEqual({ valid: false, errors: details });
  });

  test('nothing was stored and no folio taken: the next valid one is folio 1', async () => {
    expect(await t.count(retenciones, eq(retenciones.tenantId, a.tenant.id))).toBe(0);
    const ok = expectStatus(await t.api('POST', '/retenciones', { token: a.key, body: RetencionExamples.retencion_arrendamiento.value }), 201);
    expect(ok.json.folio).toBe(1);
  });

  test('every problem of one request at once, in document order', async () => {
    const body = base();
    Object.assign(body, { cve_retenc: '29', periodo: { mes_ini: '13', mes_fin: '00', ejercicio: '2028' } });
    const res = await t.call('POST', '/retenciones', { token: a.key, body });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: { rule: string }) => d.rule)).toEqual(['Reten20105', 'Reten20121', 'Reten20123', 'Reten20125']);
  });

  test('a malformed body is 400 naming the field (the format, before SAT rules)', async () => {
    for (const [mutate, field] of [
      [set('cve_retenc', 5), 'cve_retenc'],
      [set('receptor.nacionalidad', 'Marciana'), 'receptor.nacionalidad'],
      [set('totales.monto_tot_operacion', '-1'), 'totales.monto_tot_operacion'],
      [set('periodo.ejercicio', '26'), 'periodo.ejercicio'],
      [set('extra', 1), 'extra'],
    ] as const) {
      const body = base();
      mutate(body);
      const res = await t.call('POST', '/retenciones', { token: a.key, body });
      expect(res.status).toBe(400);
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await t.count(retenciones, eq(retenciones.tenantId, a.tenant.id))).toBe(1);
  });
});
