import { beforeAll, describe, expect, test } from 'bun:test';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { merged, QUINCENAL, TRABAJADOR } from '../../cfdi/corpus.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';
import { cfdis } from '../../../src/db/schema/index.ts';

/**
 * Issue 9, acceptance 4: invalid requests across the four voucher types, each → 400 naming the field and SAT's rule
 * code (CFDI40xxx, CRP20xxx, NOM…), and nothing is stored. Each case starts from a request that stamps (checked
 * first), so the one change is what makes it fail.
 */
const t = await createTestApp();
const EKU_SELF = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' };
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const servicio = { clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: 1, valor_unitario: '1000.00', impuestos: iva16 };
let key = '';
let mxn = ''; // a PPD invoice in MXN (1160.00)
let usd = ''; // a PPD invoice in USD

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  const ppd = async (over: Record<string, unknown>) => {
    const res = await t.call('POST', '/cfdis', {
      token: key,
      body: { tipo: 'I', metodo_pago: 'PPD', forma_pago: '99', receptor: ICV, conceptos: [servicio], ...over },
    });
    expect(res.status).toBe(201);
    return res.json.uuid as string;
  };
  mxn = await ppd({});
  usd = await ppd({ moneda: 'USD', tipo_cambio: '17.00' });
});

type Body = Record<string, unknown>;
const fechaPago = () => localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501');
const pago = (over: Body = {}, doc: Body = {}): Body => ({
  tipo: 'P',
  receptor: { ...ICV, uso_cfdi: 'CP01' },
  pagos: [{ fecha_pago: fechaPago(), forma_pago: '03', moneda: 'MXN', monto: '100.00', documentos: [{ uuid: mxn, imp_pagado: '100.00', ...doc }], ...over }],
});
const nomina = (over: Body = {}, top: Body = {}): Body => ({ tipo: 'N', receptor: TRABAJADOR, nomina: merged(QUINCENAL, over), ...top });
const traslado = (over: Body = {}, concepto: Body = {}): Body => ({
  tipo: 'T',
  receptor: EKU_SELF,
  conceptos: [{ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Computadora', cantidad: 2, valor_unitario: 0, ...concepto }],
  ...over,
});
const egreso = (over: Body = {}, concepto: Body = {}): Body => ({
  tipo: 'E',
  forma_pago: '03',
  receptor: { ...ICV, uso_cfdi: 'G02' },
  cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$mxn'] }],
  conceptos: [{ ...servicio, clave_unidad: 'ACT', ...concepto }],
  ...over,
});
const withoutKey = (body: Body, k: string) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== k));

/** [name, request (built lazily: it needs the invoices above), field, rule]. */
const CASES: [string, () => Body, string, string][] = [
  // Pago (Complemento de Pagos 2.0)
  ['P: forma de pago 99', () => pago({ forma_pago: '99' }), 'pagos[0].forma_pago', 'CRP20212'],
  ['P: payment currency XXX', () => pago({ moneda: 'XXX' }), 'pagos[0].moneda', 'CRP20213'],
  ['P: USD payment without tipo_cambio', () => pago({ moneda: 'USD', monto: '10.00' }, { imp_pagado: '170.00' }), 'pagos[0].tipo_cambio', 'CRP20214'],
  ['P: MXN payment with tipo_cambio 17', () => pago({ tipo_cambio: '17' }), 'pagos[0].tipo_cambio', 'CRP20215'],
  ['P: monto 0', () => pago({ monto: 0 }), 'pagos[0].monto', 'CRP20218'],
  ['P: monto with 3 decimals in MXN', () => pago({ monto: '100.001' }), 'pagos[0].monto', 'CRP20219'],
  ['P: monto below the amounts applied', () => pago({ monto: '99.00' }), 'pagos[0].monto', 'CRP20217'],
  ['P: imp_pagado over the balance', () => pago({ monto: '2000.00' }, { imp_pagado: '1160.01' }), 'pagos[0].documentos[0].imp_pagado', 'CRP20244'],
  [
    'P: imp_pagado with 3 decimals for an MXN document',
    () => pago({ monto: '100.01' }, { imp_pagado: '100.005' }),
    'pagos[0].documentos[0].imp_pagado',
    'CRP20242',
  ],
  ['P: equivalencia ≠ 1 with one currency', () => pago({}, { equivalencia: '1.5' }), 'pagos[0].documentos[0].equivalencia', 'CRP20238'],
  [
    'P: USD document paid in MXN without equivalencia',
    () => pago({ monto: '170.00' }, { uuid: usd, imp_pagado: '10.00' }),
    'pagos[0].documentos[0].equivalencia',
    'CRP20237',
  ],
  ['P: ordering bank RFC on a cash payment', () => pago({ forma_pago: '01', rfc_emisor_cta_ord: 'BMI9704113PA' }), 'pagos[0].rfc_emisor_cta_ord', 'CRP20221'],
  ['P: ordering account that fails the transfer pattern', () => pago({ cta_ordenante: '123' }), 'pagos[0].cta_ordenante', 'CRP20225'],
  ['P: beneficiary account on a cash payment', () => pago({ forma_pago: '01', cta_beneficiario: '0123456789' }), 'pagos[0].cta_beneficiario', 'CRP20228'],
  ['P: voucher currency MXN', () => ({ ...pago(), moneda: 'MXN' }), 'moneda', 'CRP20104'],
  ['P: FormaPago on the voucher', () => ({ ...pago(), forma_pago: '03' }), 'forma_pago', 'CRP20105'],
  ['P: MetodoPago on the voucher', () => ({ ...pago(), metodo_pago: 'PUE' }), 'metodo_pago', 'CRP20106'],
  ['P: CondicionesDePago', () => ({ ...pago(), condiciones_de_pago: 'Contado' }), 'condiciones_de_pago', 'CRP20107'],
  ['P: TipoCambio on the voucher', () => ({ ...pago(), tipo_cambio: '1' }), 'tipo_cambio', 'CRP20109'],
  ['P: Exportacion 03', () => ({ ...pago(), exportacion: '03' }), 'exportacion', 'CRP20102'],
  ['P: conceptos sent', () => ({ ...pago(), conceptos: [servicio] }), 'conceptos', 'CRP20111'],
  [
    'P: external document, objeto_imp 02 without taxes',
    () => pago({}, { uuid: '3f2504e0-4f89-41d3-9a0c-0305e82c3399', moneda: 'MXN', imp_saldo_ant: '200', num_parcialidad: 1, objeto_imp: '02' }),
    'pagos[0].documentos[0].impuestos',
    'CRP20246',
  ],
  [
    'P: external document, IVA importe outside the window',
    () =>
      pago(
        { monto: '116.00' },
        {
          uuid: '3f2504e0-4f89-41d3-9a0c-0305e82c3398',
          imp_pagado: '116.00',
          moneda: 'MXN',
          imp_saldo_ant: '116',
          num_parcialidad: 1,
          objeto_imp: '02',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '100.00', importe: '16.50' }] },
        },
      ),
    'pagos[0].documentos[0].impuestos.traslados[0].importe',
    'CRP20261',
  ],
  [
    'P: external document, Exento traslado with importe',
    () =>
      pago(
        {},
        {
          uuid: '3f2504e0-4f89-41d3-9a0c-0305e82c3397',
          moneda: 'MXN',
          imp_saldo_ant: '100',
          num_parcialidad: 1,
          objeto_imp: '02',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento', base: '100.00', importe: '0' }] },
        },
      ),
    'pagos[0].documentos[0].impuestos.traslados[0]',
    'CRP20258',
  ],
  // Nómina 1.2
  ['N: currency USD', () => nomina({}, { moneda: 'USD' }), 'moneda', 'NOM1'],
  ['N: Exportacion 03', () => nomina({}, { exportacion: '03' }), 'exportacion', 'NOM3'],
  ['N: InformacionGlobal', () => nomina({}, { informacion_global: { periodicidad: '04', meses: '04', anio: 2026 } }), 'informacion_global', 'NOM4'],
  ['N: receptor a persona moral', () => nomina({}, { receptor: { ...TRABAJADOR, rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' } }), 'receptor.rfc', 'NOM8'],
  ['N: receptor régimen 612', () => nomina({}, { receptor: { ...TRABAJADOR, regimen_fiscal: '612' } }), 'receptor.regimen_fiscal', 'NOM11'],
  ['N: receptor UsoCFDI G03', () => nomina({}, { receptor: { ...TRABAJADOR, uso_cfdi: 'G03' } }), 'receptor.uso_cfdi', 'NOM12'],
  ['N: conceptos sent', () => nomina({}, { conceptos: [servicio] }), 'conceptos', 'NOM13'],
  ['N: FormaPago', () => nomina({}, { forma_pago: '03' }), 'forma_pago', 'CFDI40103'],
  ['N: ordinaria with periodicidad 99', () => nomina({ receptor: { periodicidad_pago: '99' } }), 'nomina.receptor.periodicidad_pago', 'NOM33'],
  ['N: period starting after it ends', () => nomina({ fecha_inicial_pago: '2026-05-01' }), 'nomina.fecha_inicial_pago', 'NOM35'],
  ['N: contrato 01 without registro patronal', () => nomina({ emisor: { registro_patronal: undefined } }), 'nomina.emisor.registro_patronal', 'NOM42'],
  ['N: CLABE together with a bank', () => nomina({ receptor: { banco: '002' } }), 'nomina.receptor.banco', 'NOM63'],
  [
    'N: horas extra percepción without its detail',
    () => nomina({ percepciones: [{ tipo_percepcion: '019', clave: 'P019', concepto: 'Horas extra', importe_gravado: 500, importe_exento: 0 }] }),
    'nomina.percepciones[0].horas_extra',
    'NOM84',
  ],
  ['N: régimen 02 without the subsidio otro pago', () => nomina({ otros_pagos: undefined }), 'nomina.otros_pagos', 'NOM105'],
  [
    'N: unknown tipo_percepcion',
    () => nomina({ percepciones: [{ tipo_percepcion: '999', clave: 'P999', concepto: 'X', importe_gravado: 1, importe_exento: 0 }] }),
    'nomina.percepciones[0].tipo_percepcion',
    'NOM76',
  ],
  // Traslado
  ['T: FormaPago', () => traslado({ forma_pago: '01' }), 'forma_pago', 'CFDI40103'],
  ['T: MetodoPago', () => traslado({ metodo_pago: 'PUE' }), 'metodo_pago', 'CFDI40125'],
  ['T: taxes on a concepto', () => traslado({}, { valor_unitario: 100, impuestos: iva16 }), 'conceptos[0].impuestos', 'CFDI40201'],
  ['T: currency USD', () => traslado({ moneda: 'USD', tipo_cambio: '17' }), 'moneda', 'CFDI40113'],
  ['T: discount on a concepto', () => traslado({}, { valor_unitario: 100, descuento: 10 }), 'conceptos[0].descuento', 'CFDI40109'],
  ['T: unknown ClaveProdServ', () => traslado({}, { clave_prod_serv: '99999999' }), 'conceptos[0].clave_prod_serv', 'CFDI40162'],
  // Egreso
  ['E: valor_unitario 0', () => egreso({}, { valor_unitario: 0 }), 'conceptos[0].valor_unitario', 'CFDI40166'],
  ['E: PPD with a real forma de pago', () => egreso({ metodo_pago: 'PPD' }), 'forma_pago', 'CFDI40105'],
  [
    'E: unknown TipoRelacion',
    () => egreso({ cfdi_relacionados: [{ tipo_relacion: 'ZZ', uuids: ['$mxn'] }] }),
    'cfdi_relacionados[0].tipo_relacion',
    'CFDI40137',
  ],
];

/** Replaces the `$mxn` placeholder in relations by the MXN invoice's UUID. */
const resolved = (body: Body): Body =>
  body.cfdi_relacionados
    ? {
        ...body,
        cfdi_relacionados: (body.cfdi_relacionados as { tipo_relacion: string; uuids: string[] }[]).map((r) => ({
          ...r,
          uuids: r.uuids.map((u) => (u === '$mxn' ? mxn : u)),
        })),
      }
    : body;

describe('the baselines stamp', () => {
  test.each([
    ['P', () => pago()],
    ['N', () => nomina()],
    ['T', () => traslado()],
    ['E', () => egreso()],
  ] as const)('%s', async (_tipo, build) => {
    const res = await t.call('POST', '/cfdis/validate', { token: key, body: resolved(build()) });
    expect(res.json).toMatchObject({ valid: true, errors: [] });
  });
});

describe('invalid requests → 400 naming the field and the rule', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(30);
  for (const tipo of ['P', 'N', 'T', 'E']) expect(CASES.filter(([name]) => name.startsWith(`${tipo}:`)).length).toBeGreaterThanOrEqual(3);

  test.each(CASES)('%s', async (_name, build, field, rule) => {
    const body = resolved(build());
    const before = await t.count(cfdis);
    const res = await t.call('POST', '/cfdis', { token: key, body });
    expect(res.status).toBe(400);
    const details = res.json.error.details as { field: string; issue: string; rule?: string }[];
    expect(details.map((d) => `${d.field} ${d.rule}`)).toContain(`${field} ${rule}`);
    expect(details.find((d) => d.field === field && d.rule === rule)!.issue.length).toBeGreaterThan(5);
    expect(await t.count(cfdis)).toEqual(before);
    // /cfdis/validate reports the same problem without a 400.
    const check = await t.call('POST', '/cfdis/validate', { token: key, body });
    if (check.status === 200)
      expect((check.json.errors as { field: string; rule?: string }[]).map((d) => `${d.field} ${d.rule}`)).toContain(`${field} ${rule}`);
    else expect(check.status).toBe(400); // a schema-level problem: the validator answers like POST /cfdis
  });

  test('the field path names exactly what was sent: removing the nomina gives a schema error, not a 500', async () => {
    const res = await t.call('POST', '/cfdis', { token: key, body: withoutKey(nomina(), 'nomina') });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toContainEqual({ field: 'nomina', issue: 'is required for tipo N (Complemento de Nómina 1.2)' });
  });
});
