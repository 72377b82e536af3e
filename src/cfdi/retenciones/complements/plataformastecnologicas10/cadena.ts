import { attrs, each, O, R, type Step } from '../../../cadena-steps.ts';
import { PLATAFORMAS_NS } from './xml.ts';

const P = PLATAFORMAS_NS.prefix;

/** ServiciosPlataformasTecnologicas10.xslt's order: the totals, then each DetallesDelServicio with its three children. */
export const PLATAFORMAS_TECNOLOGICAS_10: Step[] = [
  ...attrs(
    'Version Periodicidad NumServ MonTotServSIVA TotalIVATrasladado TotalIVARetenido TotalISRRetenido DifIVAEntregadoPrestServ MonTotalporUsoPlataforma',
    'MonTotalContribucionGubernamental',
  ),
  each(`${P}:Servicios/${P}:DetallesDelServicio`, [
    R('FormaPagoServ'),
    R('TipoDeServ'),
    O('SubTipServ'),
    O('RFCTerceroAutorizado'),
    R('FechaServ'),
    R('PrecioServSinIVA'),
    each(`${P}:ImpuestosTrasladadosdelServicio`, attrs('Base Impuesto TipoFactor TasaCuota Importe')),
    each(`${P}:ContribucionGubernamental`, attrs('ImpContrib EntidadDondePagaLaContribucion')),
    each(`${P}:ComisionDelServicio`, [O('Base'), O('Porcentaje'), R('Importe')]),
  ]),
];
