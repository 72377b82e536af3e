import { beforeAll, describe, expect, test } from 'bun:test';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';

/** Acceptance: one invalid request per SAT rule → 400 naming the field and the rule; /validate agrees; no folio used. */
const t = await createTestApp();
let token = '';

const iva = (tasa = '0.160000') => ({ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: tasa });
const concepto = (over: Record<string, unknown> = {}) => ({
  clave_prod_serv: '84111506',
  clave_unidad: 'E48',
  descripcion: 'Servicio',
  cantidad: 1,
  valor_unitario: 100,
  impuestos: { traslados: [iva()] },
  ...over,
});
const base = (over: Record<string, unknown> = {}) => ({ tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [concepto()], ...over });
const rec = (over: Record<string, unknown>) => base({ receptor: { ...ICV, ...over } });
const con = (over: Record<string, unknown>) => base({ conceptos: [concepto(over)] });
const taxes = (impuestos: unknown) => con({ impuestos });
const hoursAgo = (h: number) => localDateTime(new Date(t.clock.now.getTime() - h * 3600_000), '42501');

const CASES: [string, () => Record<string, unknown>, string, string][] = [
  ['fecha in the future', () => base({ fecha: hoursAgo(-2) }), 'fecha', 'CFDI40101'],
  ['fecha older than 72 h', () => base({ fecha: hoursAgo(80) }), 'fecha', 'CFDI40101'],
  ['forma_pago not in catalog', () => base({ forma_pago: '77' }), 'forma_pago', 'CFDI40104'],
  ['PPD without forma_pago 99', () => base({ metodo_pago: 'PPD', forma_pago: '03' }), 'forma_pago', 'CFDI40105'],
  ['moneda not in catalog', () => base({ moneda: 'ZZZ' }), 'moneda', 'CFDI40113'],
  ['MXN with tipo_cambio ≠ 1', () => base({ tipo_cambio: '17.5' }), 'tipo_cambio', 'CFDI40114'],
  ['USD without tipo_cambio', () => base({ moneda: 'USD' }), 'tipo_cambio', 'CFDI40115'],
  ['XXX with tipo_cambio', () => base({ moneda: 'XXX', tipo_cambio: '1' }), 'tipo_cambio', 'CFDI40116'],
  ['tipo_cambio zero', () => base({ moneda: 'USD', tipo_cambio: '0' }), 'tipo_cambio', 'CFDI40117'],
  ['exportacion 02 without Comercio Exterior', () => base({ exportacion: '02' }), 'exportacion', 'CFDI40122'],
  ['exportacion not in catalog', () => base({ exportacion: '09' }), 'exportacion', 'CFDI40123'],
  ['metodo_pago not in catalog', () => base({ metodo_pago: 'PPP' }), 'metodo_pago', 'CFDI40124'],
  [
    'público en general without informacion_global',
    () => rec({ rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
    'informacion_global',
    'CFDI40130',
  ],
  [
    'periodicidad not in catalog',
    () => ({
      ...rec({ rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
      informacion_global: { periodicidad: '09', meses: '01', anio: 2026 },
    }),
    'informacion_global.periodicidad',
    'CFDI40131',
  ],
  [
    'bimestral for a non-621 issuer',
    () => ({
      ...rec({ rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
      informacion_global: { periodicidad: '05', meses: '13', anio: 2026 },
    }),
    'informacion_global.periodicidad',
    'CFDI40132',
  ],
  [
    'meses not in catalog',
    () => ({
      ...rec({ rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
      informacion_global: { periodicidad: '04', meses: '19', anio: 2026 },
    }),
    'informacion_global.meses',
    'CFDI40133',
  ],
  [
    'monthly period with a bimonthly mes',
    () => ({
      ...rec({ rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
      informacion_global: { periodicidad: '04', meses: '14', anio: 2026 },
    }),
    'informacion_global.meses',
    'CFDI40134',
  ],
  [
    'año too old',
    () => ({
      ...rec({ rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
      informacion_global: { periodicidad: '04', meses: '01', anio: 2015 },
    }),
    'informacion_global.anio',
    'CFDI40136',
  ],
  [
    'tipo_relacion not in catalog',
    () => base({ cfdi_relacionados: [{ tipo_relacion: '99', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD7'] }] }),
    'cfdi_relacionados[0].tipo_relacion',
    'CFDI40137',
  ],
  ['PUBLICO EN GENERAL with a real RFC', () => rec({ nombre: 'PUBLICO EN GENERAL' }), 'receptor.rfc', 'CFDI40146'],
  [
    'generic RFC with another postal code',
    () => rec({ rfc: 'XEXX010101000', nombre: 'ACME', regimen_fiscal: '616', uso_cfdi: 'S01', domicilio_fiscal: '01000' }),
    'receptor.domicilio_fiscal',
    'CFDI40149',
  ],
  [
    'residencia_fiscal not in c_Pais',
    () =>
      rec({
        rfc: 'XEXX010101000',
        nombre: 'ACME',
        regimen_fiscal: '616',
        uso_cfdi: 'S01',
        domicilio_fiscal: '42501',
        residencia_fiscal: 'QQQ',
        num_reg_id_trib: '123',
      }),
    'receptor.residencia_fiscal',
    'CFDI40150',
  ],
  ['residencia_fiscal for a national RFC', () => rec({ residencia_fiscal: 'USA' }), 'receptor.residencia_fiscal', 'CFDI40151'],
  [
    'residencia_fiscal MEX',
    () =>
      rec({
        rfc: 'XEXX010101000',
        nombre: 'ACME',
        regimen_fiscal: '616',
        uso_cfdi: 'S01',
        domicilio_fiscal: '42501',
        residencia_fiscal: 'MEX',
        num_reg_id_trib: '123',
      }),
    'receptor.residencia_fiscal',
    'CFDI40152',
  ],
  ['num_reg_id_trib for a national RFC', () => rec({ num_reg_id_trib: '123456789' }), 'receptor.num_reg_id_trib', 'CFDI40154'],
  ['receptor régimen not in catalog', () => rec({ regimen_fiscal: '999' }), 'receptor.regimen_fiscal', 'CFDI40157'],
  ['persona física régimen for a persona moral', () => rec({ regimen_fiscal: '612' }), 'receptor.regimen_fiscal', 'CFDI40158'],
  [
    'generic RFC with régimen ≠ 616',
    () => rec({ rfc: 'XAXX010101000', nombre: 'CLIENTE MOSTRADOR', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' }),
    'receptor.regimen_fiscal',
    'CFDI40159',
  ],
  ['uso_cfdi not in catalog', () => rec({ uso_cfdi: 'Z99' }), 'receptor.uso_cfdi', 'CFDI40160'],
  ['uso_cfdi D01 for a persona moral', () => rec({ uso_cfdi: 'D01' }), 'receptor.uso_cfdi', 'CFDI40161'],
  ['clave_prod_serv not in catalog', () => con({ clave_prod_serv: '99999999' }), 'conceptos[0].clave_prod_serv', 'CFDI40162'],
  [
    'clave_prod_serv that requires IVA without it',
    () => con({ clave_prod_serv: '80111701', impuestos: { traslados: [{ impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }] } }),
    'conceptos[0].impuestos.traslados',
    'CFDI40164',
  ],
  ['clave_unidad not in catalog', () => con({ clave_unidad: 'ZZZ' }), 'conceptos[0].clave_unidad', 'CFDI40165'],
  ['valor_unitario zero for an Ingreso', () => con({ valor_unitario: 0 }), 'conceptos[0].valor_unitario', 'CFDI40166'],
  [
    'a cuenta de terceros régimen not in catalog',
    () => con({ a_cuenta_terceros: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '999', domicilio_fiscal: '01000' } }),
    'conceptos[0].a_cuenta_terceros.regimen_fiscal',
    'CFDI40190',
  ],
  [
    'a cuenta de terceros postal code not in catalog',
    () => con({ a_cuenta_terceros: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '00001' } }),
    'conceptos[0].a_cuenta_terceros.domicilio_fiscal',
    'CFDI40192',
  ],
  ['descuento greater than the importe', () => con({ descuento: 150 }), 'conceptos[0].descuento', 'CFDI40169'],
  ['objeto_imp not in catalog', () => con({ objeto_imp: '09' }), 'conceptos[0].objeto_imp', 'CFDI40170'],
  ['objeto_imp 02 without impuestos', () => con({ objeto_imp: '02', impuestos: undefined }), 'conceptos[0].impuestos', 'CFDI40171'],
  ['objeto_imp 01 with impuestos', () => con({ objeto_imp: '01' }), 'conceptos[0].impuestos', 'CFDI40172'],
  ['empty impuestos', () => taxes({ traslados: [] }), 'conceptos[0].impuestos', 'CFDI40173'],
  ['traslado base 0', () => taxes({ traslados: [{ ...iva(), base: '0' }] }), 'conceptos[0].impuestos.traslados[0].base', 'CFDI40174'],
  [
    'ISR as a traslado',
    () => taxes({ traslados: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }] }),
    'conceptos[0].impuestos.traslados[0].impuesto',
    'CFDI40175',
  ],
  [
    'Exento with tasa',
    () => taxes({ traslados: [{ impuesto: '002', tipo_factor: 'Exento', tasa_o_cuota: '0.160000' }] }),
    'conceptos[0].impuestos.traslados[0]',
    'CFDI40177',
  ],
  [
    'Tasa without tasa_o_cuota',
    () => taxes({ traslados: [{ impuesto: '002', tipo_factor: 'Tasa' }] }),
    'conceptos[0].impuestos.traslados[0].tasa_o_cuota',
    'CFDI40178',
  ],
  ['IVA 15 %', () => taxes({ traslados: [iva('0.150000')] }), 'conceptos[0].impuestos.traslados[0].tasa_o_cuota', 'CFDI40179'],
  [
    'traslado importe outside the tolerance',
    () => taxes({ traslados: [{ ...iva(), importe: '16.02' }] }),
    'conceptos[0].impuestos.traslados[0].importe',
    'CFDI40180',
  ],
  [
    'retención base 0',
    () => taxes({ traslados: [iva()], retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000', base: '0' }] }),
    'conceptos[0].impuestos.retenciones[0].base',
    'CFDI40181',
  ],
  [
    'retención Exento',
    () => taxes({ traslados: [iva()], retenciones: [{ impuesto: '002', tipo_factor: 'Exento' }] }),
    'conceptos[0].impuestos.retenciones[0].tipo_factor',
    'CFDI40184',
  ],
  [
    'ISR retención above 35 %',
    () => taxes({ traslados: [iva()], retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.400000' }] }),
    'conceptos[0].impuestos.retenciones[0].tasa_o_cuota',
    'CFDI40185',
  ],
  [
    'retención importe outside the tolerance',
    () => taxes({ traslados: [iva()], retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000', importe: '10.50' }] }),
    'conceptos[0].impuestos.retenciones[0].importe',
    'CFDI40186',
  ],
  [
    'a cuenta de terceros = the receptor',
    () => con({ a_cuenta_terceros: { rfc: 'ICV060329BY0', nombre: 'X', regimen_fiscal: '601', domicilio_fiscal: '33826' } }),
    'conceptos[0].a_cuenta_terceros.rfc',
    'CFDI40188',
  ],
  [
    'EXT990101NI1 without the legend',
    () => con({ a_cuenta_terceros: { rfc: 'EXT990101NI1', nombre: 'X', regimen_fiscal: '616', domicilio_fiscal: '42501' } }),
    'conceptos[0].a_cuenta_terceros.nombre',
    'CFDI40189',
  ],
  ['objeto_imp 06 with IVA', () => con({ objeto_imp: '06' }), 'conceptos[0].impuestos', 'CFDI140226'],
  [
    'objeto_imp 07 without IEPS',
    () => con({ objeto_imp: '07', impuestos: { retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }] } }),
    'conceptos[0].impuestos',
    'CFDI140227',
  ],
  [
    'retenciones beyond the total',
    () =>
      taxes({
        retenciones: [
          { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.350000' },
          { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
          { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.530000' },
        ],
      }),
    'conceptos',
    'CFDI40119',
  ],
];

let seriesId = '';
async function nextFolio(): Promise<number> {
  const res = await t.call('GET', `/series/${seriesId}`, { token });
  return res.json.next_folio;
}

beforeAll(async () => {
  token = (await issuer(t, READY)).key;
  const ok = await t.call('POST', '/cfdis', { token, body: base() });
  expect(ok.status).toBe(201);
  seriesId = (await t.call('GET', '/series', { token })).json.data[0].id;
});

describe('SAT rules: one invalid request per rule', () => {
  test('there are at least 40 distinct rules', () => {
    expect(new Set(CASES.map((c) => c[3])).size).toBeGreaterThanOrEqual(40);
  });
  for (const [name, build, field, rule] of CASES) {
    test(`${rule} ${name}`, async () => {
      const before = await nextFolio();
      const body = build();
      const res = await t.call('POST', '/cfdis', { token, body });
      expect(res.status).toBe(400);
      const detail = res.json.error.details.find((d: any) => d.rule === rule);
      if (!detail) throw new Error(`expected ${rule} at ${field}, got ${JSON.stringify(res.json.error.details)}`);
      expect(detail.field).toBe(field);
      expect(detail.issue.length).toBeGreaterThan(5);
      const validate = await t.call('POST', '/cfdis/validate', { token, body });
      expect(validate.status).toBe(200);
      expect(validate.json.valid).toBe(false);
      expect(validate.json.errors).toEqual(res.json.error.details);
      expect(await nextFolio()).toBe(before);
    });
  }

  test('all problems are reported at once', async () => {
    const res = await t.call('POST', '/cfdis', {
      token,
      body: base({
        forma_pago: '77',
        moneda: 'ZZZ',
        receptor: { ...ICV, uso_cfdi: 'Z99' },
        conceptos: [concepto({ clave_unidad: 'ZZZ' }), concepto({ clave_prod_serv: '99999999' })],
      }),
    });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: any) => d.rule).sort()).toEqual(['CFDI40104', 'CFDI40113', 'CFDI40160', 'CFDI40162', 'CFDI40165']);
  });

  test('a valid request validates with no errors and consumes no folio', async () => {
    const before = await nextFolio();
    const res = await t.call('POST', '/cfdis/validate', { token, body: base() });
    expect(res.json).toEqual({ valid: true, errors: [], warnings: [] });
    expect(await nextFolio()).toBe(before);
  });
});
