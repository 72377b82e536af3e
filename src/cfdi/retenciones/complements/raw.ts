import { attrs, each, O, R } from '../../cadena-steps.ts';
import type { ComplementSchema } from './complement.ts';

const NS = 'http://www.sat.gob.mx/esquemas/retencionpago/1';

/** A complement under SAT's retencionpago/1 tree: namespace `…/1/<folder>`, schema `…/1/<folder>/<file>.xsd`. */
const sat = (folder: string, element: string, title: string, cadena: ComplementSchema['cadena'], file = folder): ComplementSchema => ({
  title,
  element: `${folder}:${element}`,
  prefix: folder,
  namespace: `${NS}/${folder}`,
  schemaLocation: `${NS}/${folder}/${file}.xsd`,
  xsd: `${file}.xsd`,
  cadena,
});

/**
 * The ten complements of SAT's Retenciones 2.0 list taken as the XML of their element (`complementos_xml`): each is
 * checked against its SAT schema and written as sent, and its cadena steps follow its stylesheet (included by
 * retenciones.xslt). Prefixes are SAT's, which the steps match.
 */
export const RAW_COMPLEMENTS: readonly ComplementSchema[] = [
  sat(
    'arrendamientoenfideicomiso',
    'Arrendamientoenfideicomiso',
    'Arrendamiento en fideicomiso',
    attrs('Version PagProvEfecPorFiduc RendimFideicom DeduccCorresp', 'MontTotRet MontResFiscDistFibras MontOtrosConceptDistr DescrMontOtrosConceptDistr'),
  ),
  sat('enajenaciondeacciones', 'EnajenaciondeAcciones', 'Enajenación de acciones', attrs('Version ContratoIntermediacion Ganancia Perdida')),
  sat('fideicomisonoempresarial', 'Fideicomisonoempresarial', 'Fideicomiso no empresarial', [
    R('Version'),
    each('fideicomisonoempresarial:IngresosOEntradas', [
      ...attrs('MontTotEntradasPeriodo PartPropAcumDelFideicom PropDelMontTot'),
      each('fideicomisonoempresarial:IntegracIngresos', [R('Concepto')]),
    ]),
    each('fideicomisonoempresarial:DeduccOSalidas', [
      ...attrs('MontTotEgresPeriodo PartPropDelFideicom PropDelMontTot'),
      each('fideicomisonoempresarial:IntegracEgresos', [R('ConceptoS')]),
    ]),
    each('fideicomisonoempresarial:RetEfectFideicomiso', attrs('MontRetRelPagFideic DescRetRelPagFideic')),
  ]),
  sat('intereses', 'Intereses', 'Intereses', attrs('Version SistFinanciero RetiroAORESRetInt OperFinancDerivad MontIntNominal MontIntReal Perdida')),
  sat(
    'intereseshipotecarios',
    'Intereseshipotecarios',
    'Intereses hipotecarios',
    attrs(
      'Version CreditoDeInstFinanc SaldoInsoluto',
      'PropDeducDelCredit MontTotIntNominalesDev MontTotIntNominalesDevYPag MontTotIntRealPagDeduc NumContrato',
    ),
  ),
  sat('operacionesconderivados', 'Operacionesconderivados', 'Operaciones con derivados', attrs('Version MontGanAcum MontPerdDed')),
  sat('premios', 'Premios', 'Premios', attrs('Version EntidadFederativa MontTotPago MontTotPagoGrav MontTotPagoExent')),
  sat('sectorfinanciero', 'SectorFinanciero', 'Sector financiero', [R('Version'), R('IdFideicom'), O('NomFideicom'), R('DescripFideicom')]),
  sat('planesderetiro11', 'Planesderetiro', 'Planes de retiro 1.1', [
    R('Version'),
    R('SistemaFinanc'),
    O('MontTotAportAnioInmAnterior'),
    R('MontIntRealesDevengAniooInmAnt'),
    R('HuboRetirosAnioInmAntPer'),
    O('MontTotRetiradoAnioInmAntPer'),
    O('MontTotExentRetiradoAnioInmAnt'),
    O('MontTotExedenteAnioInmAnt'),
    R('HuboRetirosAnioInmAnt'),
    O('MontTotRetiradoAnioInmAnt'),
    O('NumReferencia'),
    each('planesderetiro11:AportacionesODepositos', [R('TipoAportacionODeposito'), R('MontAportODep'), O('RFCFiduciaria')]),
  ]),
];
