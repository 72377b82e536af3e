import { el, type XmlNode } from '../../../xml.ts';
import type { PlataformasTecnologicasModel } from './model.ts';

export const PLATAFORMAS_NS = {
  prefix: 'plataformasTecnologicas',
  uri: 'http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10',
  xsd: 'http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10/ServiciosPlataformasTecnologicas10.xsd',
} as const;

const P = PLATAFORMAS_NS.prefix;

export function plataformasNode(m: PlataformasTecnologicasModel): XmlNode {
  return el(
    `${P}:ServiciosPlataformasTecnologicas`,
    {
      Version: '1.0',
      Periodicidad: m.periodicidad,
      NumServ: String(m.numServ),
      MonTotServSIVA: m.monTotServSiva.toString(),
      TotalIVATrasladado: m.totalIvaTrasladado.toString(),
      TotalIVARetenido: m.totalIvaRetenido.toString(),
      TotalISRRetenido: m.totalIsrRetenido.toString(),
      DifIVAEntregadoPrestServ: m.difIvaEntregadoPrestServ.toString(),
      MonTotalporUsoPlataforma: m.monTotalporUsoPlataforma.toString(),
      MonTotalContribucionGubernamental: m.monTotalContribucionGubernamental?.toString(),
    },
    [
      el(
        `${P}:Servicios`,
        {},
        m.servicios.map((s) =>
          el(
            `${P}:DetallesDelServicio`,
            {
              FormaPagoServ: s.formaPagoServ,
              TipoDeServ: s.tipoDeServ,
              SubTipServ: s.subTipServ,
              RFCTerceroAutorizado: s.rfcTerceroAutorizado,
              FechaServ: s.fechaServ,
              PrecioServSinIVA: s.precioServSinIva.toString(),
            },
            [
              s.traslado &&
                el(`${P}:ImpuestosTrasladadosdelServicio`, {
                  Base: s.traslado.base.toString(),
                  Impuesto: s.traslado.impuesto,
                  TipoFactor: 'Tasa',
                  TasaCuota: s.traslado.tasaCuota.toString(),
                  Importe: s.traslado.importe.toString(),
                }),
              s.contribucion &&
                el(`${P}:ContribucionGubernamental`, {
                  ImpContrib: s.contribucion.impContrib.toString(),
                  EntidadDondePagaLaContribucion: s.contribucion.entidad,
                }),
              s.comision &&
                el(`${P}:ComisionDelServicio`, {
                  Base: s.comision.base?.toString(),
                  Porcentaje: s.comision.porcentaje?.toString(),
                  Importe: s.comision.importe.toString(),
                }),
            ],
          ),
        ),
      ),
    ],
  );
}
