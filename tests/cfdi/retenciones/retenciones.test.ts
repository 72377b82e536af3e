import { describe, expect, test } from 'bun:test';
import { X509Certificate, verify } from 'node:crypto';
import { sealRetencion } from '../../../src/cfdi/retenciones/build.ts';
import type { RetencionInput } from '../../../src/cfdi/retenciones/input.ts';
import { prepareRetencion, type RetencionContext } from '../../../src/cfdi/retenciones/prepare.ts';
import { validateRetencionSchema } from '../../../src/cfdi/retenciones/xsd.ts';
import { tfdCadena } from '../../../src/cfdi/tfd.ts';
import { arrendamiento, context, dividendos, FOREIGN, KARLA, pagosAExtranjeros, plataformas, sandboxSat, sandboxStamp, signer } from './documents.ts';
import { retencionCadenaFromSatXslt, tfdCadenaFromSatXslt, validateRetencionAgainstSatXsd } from '../../sat/verify.ts';

/**
 * Four Retenciones 2.0 built from request-like inputs, the way a route will: each passes SAT's schemas, its cadena is
 * SAT's retenciones.xslt output, its Sello verifies with the CSD, and the sandbox's TFD verifies with its certificate.
 */
const attr = (xml: string, element: string, name: string) => new RegExp(`<${element}\\b[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1];

describe.each([
  ['plataformas tecnológicas', plataformas],
  ['dividendos', dividendos],
  ['pagos a extranjeros', pagosAExtranjeros],
  ['arrendamiento (no complement)', arrendamiento],
] as const)('%s', (_, input) => {
  test("sealed: SAT's schemas, SAT's cadena, a Sello that verifies; stamped: still valid, its TFD verifies", async () => {
    const prepared = await prepareRetencion(input, context);
    expect(prepared.errors).toEqual([]);
    const sealed = await sealRetencion(prepared.model!, signer);

    expect(await validateRetencionAgainstSatXsd(sealed.xml)).toEqual({ valid: true, errors: [] });
    expect(await retencionCadenaFromSatXslt(sealed.xml)).toBe(sealed.cadena);
    // Sello and Certificado as the document carries them.
    const sello = attr(sealed.xml, 'retenciones:Retenciones', 'Sello')!;
    const certificado = Buffer.from(attr(sealed.xml, 'retenciones:Retenciones', 'Certificado')!, 'base64');
    expect(verify('sha256', Buffer.from(sealed.cadena, 'utf8'), new X509Certificate(certificado).publicKey, Buffer.from(sello, 'base64'))).toBe(true);
    expect(attr(sealed.xml, 'retenciones:Retenciones', 'NoCertificado')).toBe('30001000000500003416');

    const stamped = await sandboxStamp(sealed.xml);
    expect(await validateRetencionAgainstSatXsd(stamped.xml)).toEqual({ valid: true, errors: [] });
    // The engine's own copy of the schemas agrees.
    expect(await validateRetencionSchema(stamped.xml)).toEqual({ valid: true, errors: [] });
    // The TFD adds nothing to the document's cadena: its template is not among retenciones.xslt's.
    expect(await retencionCadenaFromSatXslt(stamped.xml)).toBe(sealed.cadena);
    expect(stamped.tfd.selloCfd).toBe(sello);
    expect(stamped.tfd.fechaTimbrado).toBe('2026-11-27T12:00:05');
    const tfdCadenaSat = await tfdCadenaFromSatXslt(stamped.xml);
    expect(tfdCadenaSat).toBe(tfdCadena(stamped.tfd));
    expect(
      verify(
        'sha256',
        Buffer.from(tfdCadenaSat, 'utf8'),
        new X509Certificate(sandboxSat.certificateDer).publicKey,
        Buffer.from(stamped.tfd.selloSat, 'base64'),
      ),
    ).toBe(true);
  });
});

describe('computed amounts', () => {
  test('Totales: MontoTotExent and MontoTotRet from the operation and the taxes withheld, MontoRet = BaseRet × tasa', async () => {
    const { model } = await prepareRetencion(arrendamiento, context);
    const t = model!.totales;
    expect([t.montoTotOperacion, t.montoTotGrav, t.montoTotExent, t.montoTotRet].map(String)).toEqual(['20000.00', '20000.00', '0.00', '4133.34']);
    expect(t.impRetenidos.map((r) => r.montoRet.toString())).toEqual(['2000.00', '2133.34']);
    expect(model!.fechaExp).toBe('2026-11-27T12:00:00');
  });

  test('Plataformas: every total of the complement', async () => {
    const { model } = await prepareRetencion(plataformas, context);
    const p = model!.plataformasTecnologicas!;
    expect({
      NumServ: p.numServ,
      MonTotServSIVA: p.monTotServSiva.toString(),
      TotalIVATrasladado: p.totalIvaTrasladado.toString(),
      TotalIVARetenido: p.totalIvaRetenido.toString(),
      TotalISRRetenido: p.totalIsrRetenido.toString(),
      DifIVAEntregadoPrestServ: p.difIvaEntregadoPrestServ.toString(),
      MonTotalporUsoPlataforma: p.monTotalporUsoPlataforma.toString(),
    }).toEqual({
      NumServ: 2,
      MonTotServSIVA: '10000.00',
      TotalIVATrasladado: '1600.00',
      TotalIVARetenido: '800.00',
      TotalISRRetenido: '250.00',
      DifIVAEntregadoPrestServ: '800.00',
      MonTotalporUsoPlataforma: '1000.00',
    });
    expect(p.servicios.map((s) => [s.traslado?.tasaCuota.toString(), s.comision?.porcentaje?.toString()])).toEqual([
      ['0.160000', '0.100'],
      ['0.160000', undefined],
    ]);
  });
});

describe('a complement SAT lists and the engine does not structure, sent as XML', () => {
  const intereses =
    '<intereses:Intereses xmlns:intereses="http://www.sat.gob.mx/esquemas/retencionpago/1/intereses" Version="1.0" SistFinanciero="SI" RetiroAORESRetInt="NO" OperFinancDerivad="NO" MontIntNominal="1500.00" MontIntReal="300.00" Perdida="0"/>';
  const input: RetencionInput = {
    cve_retenc: '16',
    receptor: KARLA,
    periodo: { mes_ini: '01', mes_fin: '10', ejercicio: '2026' },
    totales: { monto_tot_operacion: '1500', monto_tot_grav: '300' },
    impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '300', tasa: '0.2', tipo_pago_ret: '03' }],
    complementos_xml: [intereses],
  };

  test('is checked against its schema, written once under the root namespace declaration, and in the cadena', async () => {
    const prepared = await prepareRetencion(input, context);
    expect(prepared.errors).toEqual([]);
    const sealed = await sealRetencion(prepared.model!, signer);
    expect(sealed.xml).toContain('<retenciones:Complemento><intereses:Intereses Version="1.0" SistFinanciero="SI"');
    expect(await validateRetencionAgainstSatXsd(sealed.xml)).toEqual({ valid: true, errors: [] });
    expect(await retencionCadenaFromSatXslt(sealed.xml)).toBe(sealed.cadena);
    expect(sealed.cadena.endsWith('|1.0|SI|NO|NO|1500.00|300.00|0||')).toBe(true);
  });

  test.each([
    ['not in its schema', intereses.replace('SistFinanciero="SI"', 'SistFinanciero="TAL VEZ"'), "does not pass SAT's schema intereses.xsd"],
    ['not well-formed', '<intereses:Intereses', 'is not well-formed XML'],
    ['not a complement of the list', '<x:Foo xmlns:x="urn:foo"/>', "is not one of SAT's Retenciones 2.0 complements"],
    [
      'a structured one',
      '<dividendos:Dividendos xmlns:dividendos="http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos" Version="1.0"/>',
      'is sent structured',
    ],
    ['another prefix', intereses.replaceAll('intereses:', 'i:').replace('xmlns:intereses', 'xmlns:i'), "must be written as intereses:Intereses (SAT's prefix)"],
    ['with a DTD', `<!DOCTYPE x [<!ENTITY a "b">]>${intereses}`, 'must not carry a DTD'],
  ])('%s: refused under complementos_xml[0]', async (_, xml, issue) => {
    const { errors, model } = await prepareRetencion({ ...input, complementos_xml: [xml] }, context);
    expect(model).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe('complementos_xml[0]');
    expect(errors[0]!.issue).toContain(issue);
  });
});

type Mutation = (r: RetencionInput, c: RetencionContext) => void;
const clone = <T>(v: T): T => structuredClone(v);

/** One problem each, refused with its field and SAT's rule code (Matriz de errores de Retenciones 2.0). */
const INVALID: [string, Mutation, string, string][] = [
  ['CveRetenc outside c_CveRetenc', (r) => (r.cve_retenc = '29'), 'cve_retenc', 'Reten20105'],
  ['CveRetenc 25 without DescRetenc', (r) => (r.cve_retenc = '25'), 'desc_retenc', 'Reten20106'],
  ['FechaExp not t_FechaH', (r) => (r.fecha_exp = '2026-11-27 10:00:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp not a date', (r) => (r.fecha_exp = '2026-02-30T10:00:00'), 'fecha_exp', 'Reten20103'],
  ['FechaExp not a date at all', (r) => (r.fecha_exp = 'noviembre'), 'fecha_exp', 'Reten20103'],
  ['LugarExpRetenc outside c_CodigoPostal', (_, c) => (c.emisor.codigoPostal = '00000'), 'tenant.codigo_postal', 'Reten20104'],
  ['RegimenFiscalE outside c_RegimenFiscal', (_, c) => (c.emisor.regimenFiscal = '999'), 'tenant.regimen_fiscal', 'Reten20111'],
  ['RegimenFiscalE of a persona física for a persona moral', (_, c) => (c.emisor.regimenFiscal = '605'), 'tenant.regimen_fiscal', 'Reten20112'],
  [
    'TipoRelacion outside c_TipoRelacion',
    (r) => (r.cfdi_reten_relacionados = { tipo_relacion: '99', uuid: '1474b7d3-61fc-41c4-a8b8-3f22e1161bb4' }),
    'cfdi_reten_relacionados.tipo_relacion',
    'Reten20109',
  ],
  ['CurpR with a persona moral RfcR', (r) => (r.receptor = { ...r.receptor, rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' }), 'receptor.rfc', 'Reten20117'],
  ['DomicilioFiscalR outside c_CodigoPostal', (r) => (r.receptor = { ...r.receptor, domicilio_fiscal: '00000' }), 'receptor.domicilio_fiscal', 'Reten20118'],
  ['MesIni outside c_Periodo', (r) => (r.periodo.mes_ini = '13'), 'periodo.mes_ini', 'Reten20121'],
  ['MesFin outside c_Periodo', (r) => (r.periodo.mes_fin = '00'), 'periodo.mes_fin', 'Reten20123'],
  ['MesIni after MesFin', (r) => Object.assign(r.periodo, { mes_ini: '11', mes_fin: '10' }), 'periodo.mes_ini', 'Reten20122'],
  ['Ejercicio outside c_Ejercicio', (r) => (r.periodo.ejercicio = '2028'), 'periodo.ejercicio', 'Reten20125'],
  ['Ejercicio two years before FechaExp', (r) => (r.periodo.ejercicio = '2024'), 'periodo.ejercicio', 'Reten20126'],
  ['MontoTotOperacion ≠ MontoTotGrav + MontoTotExent', (r) => (r.totales.monto_tot_exent = '500'), 'totales.monto_tot_operacion', 'Reten20127'],
  ['MontoTotGrav above MontoTotOperacion', (r) => (r.totales.monto_tot_grav = '20000.01'), 'totales.monto_tot_grav', 'Reten20128'],
  [
    'MontoTotExent above MontoTotOperacion',
    (r) => Object.assign(r.totales, { monto_tot_grav: '0', monto_tot_exent: '25000' }),
    'totales.monto_tot_exent',
    'Reten20129',
  ],
  [
    'MontoTotRet without ImpRetenidos',
    (r) => Object.assign(r, { impuestos_retenidos: [], totales: { ...r.totales, monto_tot_ret: '4133.34' } }),
    'impuestos_retenidos',
    'Reten20130',
  ],
  ['MontoTotRet ≠ Σ MontoRet', (r) => (r.totales.monto_tot_ret = '4133.33'), 'totales.monto_tot_ret', 'Reten20131'],
  ['UtilidadBimestral zero', (r) => (r.totales.utilidad_bimestral = '0'), 'totales.utilidad_bimestral', 'Reten20132'],
  ['ISRCorrespondiente zero', (r) => (r.totales.isr_correspondiente = '0.00'), 'totales.isr_correspondiente', 'Reten20133'],
];

describe('invalid requests: each refused with its field and SAT rule code, and nothing else', () => {
  test.each(INVALID)('%s', async (_, mutate, field, rule) => {
    const req = clone(arrendamiento);
    const ctx = clone(context);
    mutate(req, ctx);
    const { errors, model } = await prepareRetencion(req, ctx);
    expect(model).toBeUndefined();
    expect(errors.map((e) => [e.field, e.rule])).toEqual([[field, rule]]);
    expect(errors[0]!.issue.length).toBeGreaterThan(0);
  });

  test('every problem of one request is answered at once', async () => {
    const req = clone(arrendamiento);
    Object.assign(req, { cve_retenc: '29', periodo: { mes_ini: '13', mes_fin: '00', ejercicio: '2028' } });
    const { errors } = await prepareRetencion(req, context);
    expect(errors.map((e) => e.rule)).toEqual(['Reten20105', 'Reten20121', 'Reten20123', 'Reten20125']);
  });
});

/** What SAT's schemas refuse, refused before any XML is written: field and issue (no matrix code applies). */
const SCHEMA_INVALID: [string, Mutation, string, RetencionInput?][] = [
  ['a receptor Nacional without RFC', (r) => (r.receptor = { ...r.receptor, rfc: undefined }), 'receptor.rfc'],
  ['a receptor Extranjero with an RFC', (r) => (r.receptor = { ...FOREIGN, rfc: 'FUNK671228PH6' }), 'receptor.rfc'],
  ['ImpuestoRet outside c_Impuesto', (r) => (r.impuestos_retenidos![0]!.impuesto_ret = '004'), 'impuestos_retenidos[0].impuesto_ret'],
  ['TipoPagoRet outside c_TipoPagoRet', (r) => (r.impuestos_retenidos![0]!.tipo_pago_ret = '05'), 'impuestos_retenidos[0].tipo_pago_ret'],
  ['MontoRet ≠ BaseRet × tasa', (r) => (r.impuestos_retenidos![0]!.monto_ret = '2000.01'), 'impuestos_retenidos[0].monto_ret'],
  ['an amount with three decimals', (r) => (r.totales.monto_tot_operacion = '20000.001'), 'totales.monto_tot_operacion'],
  ['a "|" in a name', (r) => (r.receptor = { ...r.receptor, nombre: 'KARLA | FUENTE' }), 'receptor.nombre'],
  ['FolioInt with a dash', (_, c) => (c.folioInt = 'R-100'), 'folio_int'],
  [
    'Plataformas: TipoDeServ 10, out of the 2026-01-14 catalog',
    (r) => (r.plataformas_tecnologicas!.servicios[0]!.tipo_de_serv = '10'),
    'plataformas_tecnologicas.servicios[0].tipo_de_serv',
    plataformas,
  ],
  [
    'Plataformas: TasaCuota 0.15',
    (r) => (r.plataformas_tecnologicas!.servicios[0]!.impuestos_trasladados!.tasa_cuota = '0.15'),
    'plataformas_tecnologicas.servicios[0].impuestos_trasladados.tasa_cuota',
    plataformas,
  ],
  [
    'Plataformas: FechaServ outside the Periodo',
    (r) => (r.plataformas_tecnologicas!.servicios[1]!.fecha_serv = '2026-11-01'),
    'plataformas_tecnologicas.servicios[1].fecha_serv',
    plataformas,
  ],
  ['Plataformas: more IVA withheld than charged', (r) => (r.impuestos_retenidos![1]!.tasa = '0.2'), 'plataformas_tecnologicas.servicios', plataformas],
  ['Dividendos: CveTipDivOUtil 07', (r) => (r.dividendos!.divid_o_util!.cve_tip_div_o_util = '07'), 'dividendos.divid_o_util.cve_tip_div_o_util', dividendos],
  [
    'Pagos a extranjeros: Mexico as the foreign residence',
    (r) => (r.pagos_a_extranjeros!.no_beneficiario!.pais_de_resid_para_efec_fisc = 'MX'),
    'pagos_a_extranjeros.no_beneficiario.pais_de_resid_para_efec_fisc',
    pagosAExtranjeros,
  ],
];

describe("what SAT's schemas refuse: field and issue", () => {
  test.each(SCHEMA_INVALID)('%s', async (_, mutate, field, base = arrendamiento) => {
    const req = clone(base);
    const ctx = clone(context);
    mutate(req, ctx);
    const { errors, model } = await prepareRetencion(req, ctx);
    expect(model).toBeUndefined();
    expect(errors.map((e) => e.field)).toEqual([field]);
  });
});
