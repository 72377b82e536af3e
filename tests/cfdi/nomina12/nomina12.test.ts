import { describe, expect, test } from 'bun:test';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import type { NominaContext, NominaModel } from '../../../src/cfdi/complements/nomina12/model.ts';
import { antiguedadSemanas, clabeValida, nominaComprobanteAmounts, prepareNomina } from '../../../src/cfdi/complements/nomina12/rules.ts';
import { nominaNode } from '../../../src/cfdi/complements/nomina12/xml.ts';
import { el, parseXml, serializeXml } from '../../../src/cfdi/xml.ts';
import { NominaRequestSchema, type NominaRequest } from '../../../src/invoices/cfdis/complements/nomina12.ts';
import type { ErrorDetail } from '../../../src/lib/service-error.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';
import { merged, PAYROLLS, QUINCENAL } from '../corpus.ts';

const CTX: NominaContext = { emisorRfc: 'EKU9003173C9', receptorRfc: 'PEGJ800101AB1', fecha: '2026-04-30T12:00:00' };
const FISICA_CTX: NominaContext = { ...CTX, emisorRfc: 'FUNK671228PH6' };

const parse = (raw: unknown): NominaRequest => NominaRequestSchema.parse(raw);
/** The quincenal payroll with `over` merged in, parsed with the schema. */
const variant = (over: Record<string, unknown>, base: Record<string, unknown> = QUINCENAL): NominaRequest => parse(merged(base, over));

function run(req: NominaRequest, ctx = CTX): { model: NominaModel; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const model = prepareNomina(req, ctx, (field, issue, rule) => problems.push({ field, issue, rule }));
  expect(model).toBeDefined();
  return { model: model!, problems };
}
/** The problems as [field, rule] pairs. */
const reported = (req: NominaRequest, ctx = CTX) => run(req, ctx).problems.map((p) => [p.field, p.rule]);
function valid(req: NominaRequest, ctx = CTX): NominaModel {
  const { model, problems } = run(req, ctx);
  expect(problems).toEqual([]);
  return model;
}

/** A CFDI 4.0 tipo N around the node, shaped like tests/fixtures/sat/samples/cfdi40-nomina12-sin-sello.xml. */
function cfdiDocument(m: NominaModel, emisorRfc = CTX.emisorRfc): string {
  const { subTotal, descuento, total } = nominaComprobanteAmounts(m);
  const money = (d: typeof subTotal | undefined) => d?.toString();
  const root = el(
    'cfdi:Comprobante',
    {
      'xmlns:cfdi': 'http://www.sat.gob.mx/cfd/4',
      'xmlns:nomina12': 'http://www.sat.gob.mx/nomina12',
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation':
        'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd http://www.sat.gob.mx/nomina12 http://www.sat.gob.mx/sitio_internet/cfd/nomina/nomina12.xsd',
      Version: '4.0',
      Serie: 'N',
      Folio: '1',
      Fecha: CTX.fecha,
      Sello: '',
      NoCertificado: '00001000000000000000',
      Certificado: '',
      SubTotal: money(subTotal),
      Descuento: money(descuento),
      Moneda: 'MXN',
      Total: money(total),
      TipoDeComprobante: 'N',
      Exportacion: '01',
      MetodoPago: 'PUE',
      LugarExpedicion: '44100',
    },
    [
      el('cfdi:Emisor', { Rfc: emisorRfc, Nombre: 'EMPRESA DEMO', RegimenFiscal: emisorRfc.length === 12 ? '601' : '612' }),
      el('cfdi:Receptor', {
        Rfc: CTX.receptorRfc,
        Nombre: 'JUAN PEREZ GARCIA',
        DomicilioFiscalReceptor: '44100',
        RegimenFiscalReceptor: '605',
        UsoCFDI: 'CN01',
      }),
      el('cfdi:Conceptos', {}, [
        el('cfdi:Concepto', {
          ClaveProdServ: '84111505',
          Cantidad: '1',
          ClaveUnidad: 'ACT',
          Descripcion: 'Pago de nómina',
          ValorUnitario: money(subTotal),
          Importe: money(subTotal),
          Descuento: money(descuento),
          ObjetoImp: '01',
        }),
      ]),
      el('cfdi:Complemento', {}, [nominaNode(m)]),
    ],
  );
  return serializeXml(root);
}

async function expectSatValid(m: NominaModel, emisorRfc?: string) {
  const xml = cfdiDocument(m, emisorRfc);
  expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  expect(cadenaOriginal(parseXml(xml))).toBe(await cadenaFromSatXslt(xml));
}

describe('prepareNomina: quincenal ordinary payroll', () => {
  const model = valid(parse(QUINCENAL));

  test('totals computed from the lines', () => {
    expect(model.totalPercepciones?.toString()).toBe('8400.00');
    expect(model.totalDeducciones?.toString()).toBe('517.99');
    expect(model.totalOtrosPagos?.toString()).toBe('350.00');
    expect(model.receptor.antiguedad).toBe('P78W');
  });

  test('CFDI amounts: SubTotal = percepciones + otros pagos, Descuento = deducciones', () => {
    const a = nominaComprobanteAmounts(model);
    expect([a.subTotal.toString(), a.descuento?.toString(), a.total.toString()]).toEqual(['8750.00', '517.99', '8232.01']);
  });

  test('no deducciones: no Descuento', () => {
    const a = nominaComprobanteAmounts(valid(variant({ deducciones: undefined })));
    expect([a.subTotal.toString(), a.descuento, a.total.toString()]).toEqual(['8750.00', undefined, '8750.00']);
  });

  test('the node: attributes and children exactly, in XSD order', () => {
    expect(nominaNode(model)).toEqual(
      el(
        'nomina12:Nomina',
        {
          Version: '1.2',
          TipoNomina: 'O',
          FechaPago: '2026-04-30',
          FechaInicialPago: '2026-04-16',
          FechaFinalPago: '2026-04-30',
          NumDiasPagados: '15.000',
          TotalPercepciones: '8400.00',
          TotalDeducciones: '517.99',
          TotalOtrosPagos: '350.00',
        },
        [
          el('nomina12:Emisor', { RegistroPatronal: 'B5510768108' }),
          el('nomina12:Receptor', {
            Curp: 'PEGJ800101HJCRRN09',
            NumSeguridadSocial: '04078873454',
            FechaInicioRelLaboral: '2024-11-01',
            Antigüedad: 'P78W',
            TipoContrato: '01',
            Sindicalizado: 'No',
            TipoJornada: '01',
            TipoRegimen: '02',
            NumEmpleado: '120',
            Departamento: 'Almacén',
            Puesto: 'Auxiliar',
            RiesgoPuesto: '1',
            PeriodicidadPago: '04',
            CuentaBancaria: '032180000118359719',
            SalarioBaseCotApor: '293.26',
            SalarioDiarioIntegrado: '293.26',
            ClaveEntFed: 'JAL',
          }),
          el('nomina12:Percepciones', { TotalSueldos: '8400.00', TotalGravado: '5005.80', TotalExento: '3394.20' }, [
            el('nomina12:Percepcion', { TipoPercepcion: '001', Clave: 'P001', Concepto: 'Sueldo', ImporteGravado: '4200.00', ImporteExento: '0.00' }),
            el('nomina12:Percepcion', { TipoPercepcion: '002', Clave: 'P002', Concepto: 'Aguinaldo', ImporteGravado: '805.80', ImporteExento: '3394.20' }),
          ]),
          el('nomina12:Deducciones', { TotalOtrasDeducciones: '105.62', TotalImpuestosRetenidos: '412.37' }, [
            el('nomina12:Deduccion', { TipoDeduccion: '001', Clave: 'D001', Concepto: 'IMSS', Importe: '105.62' }),
            el('nomina12:Deduccion', { TipoDeduccion: '002', Clave: 'D002', Concepto: 'ISR', Importe: '412.37' }),
          ]),
          el('nomina12:OtrosPagos', {}, [
            el('nomina12:OtroPago', { TipoOtroPago: '002', Clave: 'OP002', Concepto: 'Subsidio para el empleo', Importe: '0.00' }, [
              el('nomina12:SubsidioAlEmpleo', { SubsidioCausado: '237.24' }),
            ]),
            el('nomina12:OtroPago', { TipoOtroPago: '003', Clave: 'OP003', Concepto: 'Viáticos', Importe: '350.00' }),
          ]),
        ],
      ),
    );
    // Attribute order is the XSD's, which is also the cadena's.
    expect(Object.keys(nominaNode(model).attrs)).toEqual([
      'Version',
      'TipoNomina',
      'FechaPago',
      'FechaInicialPago',
      'FechaFinalPago',
      'NumDiasPagados',
      'TotalPercepciones',
      'TotalDeducciones',
      'TotalOtrosPagos',
    ]);
  });

  test('passes SAT XSD and matches SAT cadena XSLT', async () => expectSatValid(model));

  test('only ISR deducted: no TotalOtrasDeducciones; no ISR: no TotalImpuestosRetenidos', () => {
    const isr = valid(variant({ deducciones: [{ tipo_deduccion: '002', clave: 'D002', concepto: 'ISR', importe: '10' }] }));
    expect(nominaNode(isr).children[3]!.attrs).toEqual({ TotalImpuestosRetenidos: '10.00' });
    const imss = valid(variant({ deducciones: [{ tipo_deduccion: '001', clave: 'D001', concepto: 'IMSS', importe: '10' }] }));
    expect(nominaNode(imss).children[3]!.attrs).toEqual({ TotalOtrasDeducciones: '10.00' });
  });
});

describe('prepareNomina: varied payrolls pass SAT XSD and cadena XSLT', () => {
  test('extraordinaria: aguinaldo only', async () => {
    const m = valid(variant(PAYROLLS.extraordinaria));
    expect(m.receptor.antiguedad).toBe('P58W');
    expect(nominaComprobanteAmounts(m).total.toString()).toBe('5898.85');
    await expectSatValid(m);
  });

  test('separación e indemnización', async () => {
    const m = valid(variant(PAYROLLS.separacion));
    expect(m.percepciones?.totalSueldos?.toString()).toBe('4200.00');
    expect(m.percepciones?.totalSeparacionIndemnizacion?.toString()).toBe('28560.50');
    expect(m.totalPercepciones?.toString()).toBe('32760.50');
    await expectSatValid(m);
  });

  test('jubilación en parcialidades (contrato 10, régimen 12, no IMSS registration)', async () => {
    const m = valid(variant(PAYROLLS.jubilacion));
    expect(m.percepciones?.totalJubilacionPensionRetiro?.toString()).toBe('12000.00');
    expect(m.percepciones?.totalSueldos).toBeUndefined();
    expect(m.emisor).toBeUndefined();
    await expectSatValid(m);
  });

  test('persona física employer: horas extra, incapacidad, subcontratación, compensación, card account', async () => {
    const m = valid(variant(merged(PAYROLLS.horasExtra, { emisor: { curp: 'FUNK671228MDFNLR05', registro_patronal: 'Y6012345102' } })), FISICA_CTX);
    const receptor = nominaNode(m).children[1]!;
    expect(receptor.attrs.Sindicalizado).toBe('Sí');
    expect(receptor.children.map((c) => c.attrs.PorcentajeTiempo)).toEqual(['60.5', '39.5']);
    await expectSatValid(m, FISICA_CTX.emisorRfc);
  });

  test('asimilados (contrato 09, régimen 09): acciones o títulos, SNCF ingresos mixtos', async () => {
    const m = valid(variant(PAYROLLS.asimilados));
    expect(m.receptor.antiguedad).toBeUndefined();
    expect(nominaNode(m).attrs.NumDiasPagados).toBe('30.500');
    await expectSatValid(m);
  });
});

describe('prepareNomina: rules', () => {
  const quincenal = parse(QUINCENAL);

  test('catalog keys must exist and be in force on the CFDI day', () => {
    expect(reported({ ...quincenal, tipo_nomina: 'X' as 'O' })).toEqual([['nomina.tipo_nomina', 'NOM32']]);
    expect(reported(variant({ receptor: { tipo_contrato: '11' } }))).toEqual([['nomina.receptor.tipo_contrato', 'NOM51']]);
    expect(reported(variant({ receptor: { tipo_jornada: '10' } }))).toEqual([['nomina.receptor.tipo_jornada', 'NOM52']]);
    expect(reported(variant({ receptor: { tipo_regimen: '01' } }))).toContainEqual(['nomina.receptor.tipo_regimen', 'NOM56']);
    expect(reported(variant({ receptor: { riesgo_puesto: '6' } }))).toEqual([['nomina.receptor.riesgo_puesto', 'NOM59']]);
    expect(reported(variant({ receptor: { periodicidad_pago: '11' } }))).toEqual([['nomina.receptor.periodicidad_pago', 'NOM60']]);
    expect(reported(variant({ receptor: { banco: '001', cuenta_bancaria: '1234567890' } }))).toEqual([['nomina.receptor.banco', 'NOM61']]);
    expect(reported(variant({ receptor: { clave_ent_fed: 'XYZ' } }))).toEqual([['nomina.receptor.clave_ent_fed', 'NOM66']]);
    expect(reported(variant({ emisor: { entidad_sncf: { origen_recurso: 'IX' } } }))).toEqual([['nomina.emisor.entidad_sncf.origen_recurso', 'NOM47']]);
    const percepcion = { tipo_percepcion: '007', clave: 'P007', concepto: 'X', importe_gravado: 1000, importe_exento: 0 };
    expect(reported(variant({ percepciones: [percepcion] }))).toEqual([['nomina.percepciones[0].tipo_percepcion', 'NOM76']]);
    expect(reported(variant({ deducciones: [{ tipo_deduccion: '999', clave: 'D999', concepto: 'X', importe: 1 }] }))).toEqual([
      ['nomina.deducciones[0].tipo_deduccion', 'NOM93'],
    ]);
    expect(reported(variant({ otros_pagos: [...QUINCENAL.otros_pagos, { tipo_otro_pago: '010', clave: 'OP010', concepto: 'X', importe: 1 }] }))).toEqual([
      ['nomina.otros_pagos[2].tipo_otro_pago', 'NOM97'],
    ]);
    expect(reported(variant({ incapacidades: [{ dias_incapacidad: 1, tipo_incapacidad: '05' }] }))).toEqual([
      ['nomina.incapacidades[0].tipo_incapacidad', 'NOM104'],
    ]);
    const horas = {
      tipo_percepcion: '019',
      clave: 'P019',
      concepto: 'HE',
      importe_gravado: 1000,
      importe_exento: 0,
      horas_extra: [{ dias: 1, tipo_horas: '04', horas_extra: 2, importe_pagado: 1000 }],
    };
    expect(reported(variant({ percepciones: [horas] }))).toEqual([['nomina.percepciones[0].horas_extra[0].tipo_horas', 'NOM88']]);
  });

  test('a key not yet in force on the CFDI day is rejected (tipo_percepcion 057 starts 2026-06-12)', () => {
    const premio = { tipo_percepcion: '057', clave: 'P057', concepto: 'Premio', importe_gravado: 0, importe_exento: 1000 };
    expect(reported(variant({ percepciones: [premio] }))).toEqual([['nomina.percepciones[0].tipo_percepcion', 'NOM76']]);
    expect(reported(variant({ percepciones: [premio] }), { ...CTX, fecha: '2026-06-12T09:00:00' })).toEqual([]);
  });

  test('tipo_nomina O needs periodicidad ≠ 99; E needs 99', () => {
    expect(reported(variant({ receptor: { periodicidad_pago: '99' } }))).toEqual([['nomina.receptor.periodicidad_pago', 'NOM33']]);
    expect(reported(variant({ tipo_nomina: 'E' }))).toEqual([['nomina.receptor.periodicidad_pago', 'NOM34']]);
  });

  test('dates: fecha_inicial_pago ≤ fecha_final_pago; fecha_inicio_rel_laboral ≤ fecha_final_pago', () => {
    expect(reported(variant({ fecha_inicial_pago: '2026-05-01' }))).toEqual([['nomina.fecha_inicial_pago', 'NOM35']]);
    const late = run(variant({ receptor: { fecha_inicio_rel_laboral: '2026-05-01' } }));
    expect(late.problems.map((p) => [p.field, p.rule])).toEqual([['nomina.receptor.fecha_inicio_rel_laboral', 'NOM53']]);
    expect(late.model.receptor.antiguedad).toBeUndefined();
  });

  test('num_dias_pagados > 0', () => {
    expect(reported(variant({ num_dias_pagados: 0 }))).toEqual([['nomina.num_dias_pagados', undefined]]);
  });

  test('at least one of percepciones / otros_pagos', () => {
    const bare = variant({ percepciones: undefined, otros_pagos: undefined, deducciones: undefined, receptor: { tipo_regimen: '03' } });
    expect(reported(bare)).toEqual([['nomina.percepciones', 'NOM31']]);
    // Otros pagos alone are a payroll (e.g. a subsidy-only receipt).
    expect(reported(variant({ percepciones: undefined, deducciones: undefined }))).toEqual([]);
  });

  test('emisor.curp: required for a persona física employer, forbidden for a persona moral', () => {
    expect(reported(quincenal, FISICA_CTX)).toEqual([['nomina.emisor.curp', 'NOM6']]);
    expect(reported(variant({ emisor: { curp: 'FUNK671228MDFNLR05' } }))).toEqual([['nomina.emisor.curp', 'NOM5']]);
  });

  test('registro_patronal: required with contrato 01–08, forbidden with 09–99', () => {
    expect(reported(variant({ emisor: { registro_patronal: undefined } }))).toEqual([['nomina.emisor.registro_patronal', 'NOM42']]);
    const asimilado = variant({ receptor: { tipo_contrato: '09', tipo_regimen: '09' }, otros_pagos: [QUINCENAL.otros_pagos[1]] });
    expect(reported(asimilado)).toEqual([['nomina.emisor.registro_patronal', 'NOM43']]);
  });

  test('registro_patronal needs nss, fecha_inicio_rel_laboral (Antigüedad), riesgo_puesto and salario_diario_integrado', () => {
    const bare = variant({ receptor: { nss: undefined, fecha_inicio_rel_laboral: undefined, riesgo_puesto: undefined, salario_diario_integrado: undefined } });
    expect(reported(bare)).toEqual([
      ['nomina.receptor.nss', 'NOM44'],
      ['nomina.receptor.fecha_inicio_rel_laboral', 'NOM44'],
      ['nomina.receptor.riesgo_puesto', 'NOM44'],
      ['nomina.receptor.salario_diario_integrado', 'NOM44'],
    ]);
  });

  test('tipo_regimen must match the kind of contract', () => {
    expect(reported(variant({ receptor: { tipo_regimen: '09' } }))).toEqual([
      ['nomina.receptor.tipo_regimen', 'NOM57'],
      ['nomina.otros_pagos[0].tipo_otro_pago', 'NOM106'],
    ]);
    const asimilado = variant({ emisor: { registro_patronal: undefined }, receptor: { tipo_contrato: '09', tipo_regimen: '02' } });
    expect(reported(asimilado)).toEqual([['nomina.receptor.tipo_regimen', 'NOM58']]);
  });

  test('entidad_sncf: monto_recurso_propio only and always with IM, below the payroll total', () => {
    expect(reported(variant({ emisor: { entidad_sncf: { origen_recurso: 'IM' } } }))).toEqual([['nomina.emisor.entidad_sncf.monto_recurso_propio', 'NOM48']]);
    expect(reported(variant({ emisor: { entidad_sncf: { origen_recurso: 'IP', monto_recurso_propio: 1 } } }))).toEqual([
      ['nomina.emisor.entidad_sncf.monto_recurso_propio', 'NOM49'],
    ]);
    expect(reported(variant({ emisor: { entidad_sncf: { origen_recurso: 'IM', monto_recurso_propio: 8750 } } }))).toEqual([
      ['nomina.emisor.entidad_sncf.monto_recurso_propio', 'NOM50'],
    ]);
  });

  test('Antigüedad in weeks: complete weeks of the inclusive span', () => {
    expect(antiguedadSemanas('2026-04-30', '2026-04-30')).toBe('P0W');
    expect(antiguedadSemanas('2026-04-24', '2026-04-30')).toBe('P1W');
    expect(antiguedadSemanas('2026-04-25', '2026-04-30')).toBe('P0W');
    expect(antiguedadSemanas('2024-02-26', '2024-03-03')).toBe('P1W'); // across a leap day
  });

  test('cuenta_bancaria: 10, 11, 16 or 18 digits; a CLABE has a valid control digit and no banco; others need banco', () => {
    expect(reported(variant({ receptor: { cuenta_bancaria: '123456789012', banco: '002' } }))).toEqual([['nomina.receptor.cuenta_bancaria', 'NOM62']]);
    expect(reported(variant({ receptor: { banco: '002' } }))).toEqual([['nomina.receptor.banco', 'NOM63']]);
    expect(reported(variant({ receptor: { cuenta_bancaria: '032180000118359710' } }))).toEqual([['nomina.receptor.cuenta_bancaria', 'NOM64']]);
    expect(reported(variant({ receptor: { cuenta_bancaria: '4152313412341234' } }))).toEqual([['nomina.receptor.banco', 'NOM65']]);
    expect(reported(variant({ receptor: { cuenta_bancaria: '5512345678', banco: '002' } }))).toEqual([]);
    expect(clabeValida('032180000118359719')).toBe(true);
    expect(clabeValida('002180001234567896')).toBe(true);
    expect(clabeValida('002180001234567890')).toBe(false);
  });

  test('subcontratación percentages add up to 100', () => {
    const sub = [
      { rfc_labora: 'EKU9003173C9', porcentaje_tiempo: 50 },
      { rfc_labora: 'AAA010101AAA', porcentaje_tiempo: '49.999' },
    ];
    expect(reported(variant({ receptor: { subcontratacion: sub } }))).toEqual([['nomina.receptor.subcontratacion', 'NOM68']]);
  });

  test('percepción importe_gravado + importe_exento > 0', () => {
    const zero = { tipo_percepcion: '010', clave: 'P010', concepto: 'Puntualidad', importe_gravado: 0, importe_exento: '0.00' };
    expect(reported(variant({ percepciones: [...QUINCENAL.percepciones, zero] }))).toEqual([['nomina.percepciones[2].importe_gravado', 'NOM75']]);
  });

  test('percepciones 022/023/025 need separacion_indemnizacion, and it needs them', () => {
    const prima = { tipo_percepcion: '023', clave: 'P023', concepto: 'Separación', importe_gravado: 1000, importe_exento: 0 };
    expect(reported(variant({ percepciones: [prima] }))).toEqual([['nomina.separacion_indemnizacion', 'NOM78']]);
    const node = { total_pagado: 100, num_anios_servicio: 1, ultimo_sueldo_mens_ord: 100, ingreso_acumulable: 100, ingreso_no_acumulable: 0 };
    expect(reported(variant({ separacion_indemnizacion: node }))).toEqual([['nomina.separacion_indemnizacion', 'NOM78']]);
  });

  test('percepciones 039/044 need jubilacion_pension_retiro, and it needs them; 039 is one payment, 044 partial', () => {
    const jubilado = { emisor: undefined, receptor: { tipo_contrato: '10', tipo_regimen: '12' }, otros_pagos: undefined };
    const una = { tipo_percepcion: '039', clave: 'P039', concepto: 'Jubilación', importe_gravado: 1000, importe_exento: 0 };
    const parcial = { ...una, tipo_percepcion: '044' };
    expect(reported(variant({ ...jubilado, percepciones: [una] }))).toEqual([['nomina.jubilacion_pension_retiro', 'NOM79']]);
    const node = { ingreso_acumulable: 100, ingreso_no_acumulable: 0 };
    expect(reported(variant({ jubilacion_pension_retiro: { ...node, total_una_exhibicion: 100 } }))).toEqual([['nomina.jubilacion_pension_retiro', 'NOM79']]);
    expect(reported(variant({ ...jubilado, percepciones: [una], jubilacion_pension_retiro: { ...node, total_parcialidad: 100, monto_diario: 5 } }))).toEqual([
      ['nomina.jubilacion_pension_retiro.total_una_exhibicion', 'NOM80'],
      ['nomina.jubilacion_pension_retiro.total_parcialidad', 'NOM80'],
    ]);
    expect(reported(variant({ ...jubilado, percepciones: [parcial], jubilacion_pension_retiro: { ...node, total_una_exhibicion: 100 } }))).toEqual([
      ['nomina.jubilacion_pension_retiro.total_parcialidad', 'NOM81'],
      ['nomina.jubilacion_pension_retiro.total_una_exhibicion', 'NOM81'],
    ]);
  });

  test('percepción 019 needs horas_extra, and horas_extra needs 019', () => {
    const he = { tipo_percepcion: '019', clave: 'P019', concepto: 'Horas extra', importe_gravado: 1000, importe_exento: 0 };
    expect(reported(variant({ percepciones: [he] }))).toEqual([['nomina.percepciones[0].horas_extra', 'NOM84']]);
    const sueldo = { ...QUINCENAL.percepciones[0], horas_extra: [{ dias: 1, tipo_horas: '01', horas_extra: 1, importe_pagado: 10 }] };
    expect(reported(variant({ percepciones: [sueldo] }))).toEqual([['nomina.percepciones[0].horas_extra', 'NOM85']]);
  });

  test('percepción 045 needs acciones_o_titulos, and acciones_o_titulos needs 045', () => {
    const acciones = { tipo_percepcion: '045', clave: 'P045', concepto: 'Acciones', importe_gravado: 1000, importe_exento: 0 };
    expect(reported(variant({ percepciones: [acciones] }))).toEqual([['nomina.percepciones[0].acciones_o_titulos', 'NOM82']]);
    const sueldo = { ...QUINCENAL.percepciones[0], acciones_o_titulos: { valor_mercado: 1, precio_al_otorgarse: 1 } };
    expect(reported(variant({ percepciones: [sueldo] }))).toEqual([['nomina.percepciones[0].acciones_o_titulos', 'NOM83']]);
  });

  test('percepción 014 needs incapacidades whose importe_monetario add up to it', () => {
    const subsidio = { tipo_percepcion: '014', clave: 'P014', concepto: 'Subsidio incapacidad', importe_gravado: 0, importe_exento: 300 };
    expect(reported(variant({ percepciones: [subsidio] }))).toEqual([['nomina.incapacidades', 'NOM86']]);
    const incapacidades = [
      { dias_incapacidad: 1, tipo_incapacidad: '01', importe_monetario: 100 },
      { dias_incapacidad: 2, tipo_incapacidad: '01', importe_monetario: 150 },
    ];
    expect(reported(variant({ percepciones: [subsidio], incapacidades }))).toEqual([['nomina.percepciones[0].importe_gravado', 'NOM87']]);
    expect(reported(variant({ percepciones: [{ ...subsidio, importe_exento: 250 }], incapacidades }))).toEqual([]);
  });

  test('deducción 006 needs incapacidades whose importe_monetario add up to it', () => {
    const descuento = { tipo_deduccion: '006', clave: 'D006', concepto: 'Incapacidad', importe: '300.00' };
    expect(reported(variant({ deducciones: [descuento] }))).toEqual([['nomina.incapacidades', 'NOM94']]);
    const incapacidades = [
      { dias_incapacidad: 1, tipo_incapacidad: '02', importe_monetario: 100 },
      { dias_incapacidad: 2, tipo_incapacidad: '02' },
    ];
    expect(reported(variant({ deducciones: [descuento], incapacidades }))).toEqual([['nomina.deducciones[0].importe', 'NOM95']]);
  });

  test('deducción importe > 0', () => {
    expect(reported(variant({ deducciones: [{ tipo_deduccion: '001', clave: 'D001', concepto: 'IMSS', importe: 0 }] }))).toEqual([
      ['nomina.deducciones[0].importe', 'NOM96'],
    ]);
  });

  test('otro pago 002 needs subsidio_causado ≥ importe; the node belongs to 002 only', () => {
    const [subsidio, viaticos] = QUINCENAL.otros_pagos;
    expect(reported(variant({ otros_pagos: [{ ...subsidio, subsidio_causado: undefined }] }))).toEqual([['nomina.otros_pagos[0].subsidio_causado', 'NOM99']]);
    expect(reported(variant({ otros_pagos: [{ ...subsidio, importe: '237.25' }] }))).toEqual([['nomina.otros_pagos[0].importe', 'NOM107']]);
    expect(reported(variant({ otros_pagos: [subsidio, { ...viaticos, subsidio_causado: 1 }] }))).toEqual([
      ['nomina.otros_pagos[1].subsidio_causado', undefined],
    ]);
  });

  test('other otros pagos must pay something', () => {
    expect(reported(variant({ otros_pagos: [QUINCENAL.otros_pagos[0], { ...QUINCENAL.otros_pagos[1], importe: 0 }] }))).toEqual([
      ['nomina.otros_pagos[1].importe', 'NOM100'],
    ]);
  });

  test('otro pago 004 needs compensacion_saldos_a_favor: saldo ≥ remanente, from an earlier year', () => {
    const base = { tipo_otro_pago: '004', clave: 'OP004', concepto: 'Saldo a favor', importe: 100 };
    const op = (compensacion?: object) => variant({ otros_pagos: [QUINCENAL.otros_pagos[0], { ...base, compensacion_saldos_a_favor: compensacion }] });
    expect(reported(op())).toEqual([['nomina.otros_pagos[1].compensacion_saldos_a_favor', 'NOM98']]);
    expect(reported(op({ saldo_a_favor: 100, anio: 2025, remanente_sal_fav: 101 }))).toEqual([
      ['nomina.otros_pagos[1].compensacion_saldos_a_favor.saldo_a_favor', 'NOM102'],
    ]);
    expect(reported(op({ saldo_a_favor: 100, anio: 2026, remanente_sal_fav: 0 }))).toEqual([
      ['nomina.otros_pagos[1].compensacion_saldos_a_favor.anio', 'NOM103'],
    ]);
    const december = { fecha_pago: '2026-12-15', fecha_inicial_pago: '2026-12-01', fecha_final_pago: '2026-12-15' };
    expect(
      reported(
        variant({
          ...december,
          otros_pagos: [QUINCENAL.otros_pagos[0], { ...base, compensacion_saldos_a_favor: { saldo_a_favor: 100, anio: 2026, remanente_sal_fav: 0 } }],
        }),
      ),
    ).toEqual([]);
  });

  test('tipo_regimen 02 needs an otro pago 002 unless 007/008 are used; other regimes may not use them', () => {
    expect(reported(variant({ otros_pagos: [QUINCENAL.otros_pagos[1]] }))).toEqual([['nomina.otros_pagos', 'NOM105']]);
    expect(reported(variant({ otros_pagos: undefined }))).toEqual([['nomina.otros_pagos', 'NOM105']]);
    const ajuste = { tipo_otro_pago: '008', clave: 'OP008', concepto: 'Subsidio no correspondía', importe: '10.00' };
    expect(reported(variant({ otros_pagos: [ajuste] }))).toEqual([]);
    const jubilado = variant({
      emisor: undefined,
      receptor: { tipo_contrato: '10', tipo_regimen: '12' },
      percepciones: [{ tipo_percepcion: '038', clave: 'P038', concepto: 'Otros', importe_gravado: 1000, importe_exento: 0 }],
    });
    expect(reported(jubilado)).toEqual([['nomina.otros_pagos[0].tipo_otro_pago', 'NOM106']]);
  });

  test('deducciones may not exceed percepciones + otros pagos (the CFDI total would be negative)', () => {
    expect(reported(variant({ deducciones: [{ tipo_deduccion: '004', clave: 'D004', concepto: 'Otros', importe: '8750.01' }] }))).toEqual([
      ['nomina.deducciones', 'CFDI40110'],
    ]);
  });

  test('every problem is collected, none thrown', () => {
    const bad = variant({
      receptor: { periodicidad_pago: '99', clave_ent_fed: 'XX', cuenta_bancaria: '123456789012' },
      fecha_inicial_pago: '2026-05-01',
      otros_pagos: [QUINCENAL.otros_pagos[1]],
    });
    expect(reported(bad).map(([, rule]) => rule)).toEqual(['NOM33', 'NOM35', 'NOM66', 'NOM62', 'NOM105']);
  });
});

describe('NominaRequestSchema', () => {
  const issues = (raw: unknown) => {
    const r = NominaRequestSchema.safeParse(raw);
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };
  test('accepts the quincenal payroll; amounts become decimal strings', () => {
    const req = parse(QUINCENAL);
    expect(req.num_dias_pagados).toBe('15');
    expect(req.percepciones?.[0]?.importe_exento).toBe('0');
  });
  test('format checks: CURP, dates, money decimals, RFC, strict objects', () => {
    const bad = (over: Record<string, unknown>) => issues({ ...QUINCENAL, ...over });
    expect(bad({ receptor: { ...QUINCENAL.receptor, curp: 'PEGJ800101HJCRRN0' } })).toEqual(['receptor.curp']);
    expect(bad({ fecha_pago: '2026-02-30' })).toEqual(['fecha_pago']);
    expect(bad({ fecha_pago: '30/04/2026' })).toEqual(['fecha_pago']);
    expect(bad({ num_dias_pagados: '15.0005' })).toEqual(['num_dias_pagados']);
    expect(bad({ deducciones: [{ tipo_deduccion: '001', clave: 'D001', concepto: 'IMSS', importe: '1.005' }] })).toEqual(['deducciones.0.importe']);
    expect(bad({ emisor: { rfc_patron_origen: 'NOT-AN-RFC' } })).toEqual(['emisor.rfc_patron_origen']);
    expect(bad({ receptor: { ...QUINCENAL.receptor, antiguedad: 'P1W' } })).toEqual(['receptor']);
    expect(bad({ receptor: { ...QUINCENAL.receptor, cuenta_bancaria: '12345' } })).toEqual(['receptor.cuenta_bancaria']);
    expect(bad({ percepciones: [{ ...QUINCENAL.percepciones[0], clave: 'P1' }] })).toEqual(['percepciones.0.clave']);
    expect(bad({ tipo_nomina: 'X' })).toEqual(['tipo_nomina']);
  });
  test('lower-case CURP is normalised', () => {
    expect(parse({ ...QUINCENAL, receptor: { ...QUINCENAL.receptor, curp: 'pegj800101hjcrrn09' } }).receptor.curp).toBe('PEGJ800101HJCRRN09');
  });
});
