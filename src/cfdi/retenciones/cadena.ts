import { attrs, each, O, R, type Step } from '../cadena-steps.ts';
import { cadenaOf } from '../cadena.ts';
import type { XmlNode } from '../xml.ts';
import { COMPLEMENT_STEPS } from './complements/index.ts';

/**
 * The cadena original of a Retenciones 2.0, in the order of SAT's retenciones.xslt: the document's attributes,
 * CfdiRetenRelacionados, Emisor, Receptor (NacionalidadR, then Nacional's or Extranjero's), Periodo, Totales with each
 * ImpRetenidos, then the templates of the complements it includes. The tests compare it with the XSLT's own output.
 */
const RETENCIONES_20: Step[] = [
  ...attrs('Version NoCertificado'),
  O('FolioInt'),
  ...attrs('FechaExp LugarExpRetenc CveRetenc', 'DescRetenc'),
  each('retenciones:CfdiRetenRelacionados', attrs('TipoRelacion UUID')),
  each('retenciones:Emisor', attrs('RfcE NomDenRazSocE RegimenFiscalE')),
  each('retenciones:Receptor', [
    R('NacionalidadR'),
    each('retenciones:Nacional', [R('RfcR'), R('NomDenRazSocR'), O('CurpR'), R('DomicilioFiscalR')]),
    each('retenciones:Extranjero', [O('NumRegIdTribR'), R('NomDenRazSocR')]),
  ]),
  each('retenciones:Periodo', attrs('MesIni MesFin Ejercicio')),
  each('retenciones:Totales', [
    ...attrs('MontoTotOperacion MontoTotGrav MontoTotExent MontoTotRet', 'UtilidadBimestral ISRCorrespondiente'),
    each('retenciones:ImpRetenidos', [O('BaseRet'), O('ImpuestoRet'), R('MontoRet'), R('TipoPagoRet')]),
  ]),
  each('retenciones:Complemento', [{ complements: true }]),
];

export const cadenaRetencion = (retenciones: XmlNode): string => cadenaOf(retenciones, RETENCIONES_20, COMPLEMENT_STEPS);
