import { el, type XmlNode } from '../../xml.ts';
import { domicilioNode as domicilioNodeOf } from '../domicilio.ts';
import type { ComercioExteriorModel, DomicilioComercioExteriorModel, MercanciaComercioExteriorModel } from './model.ts';

/** The complement's namespace and where SAT publishes its schema (the root declares both). */
export const COMERCIO_EXTERIOR_NS = {
  prefix: 'cce20',
  uri: 'http://www.sat.gob.mx/ComercioExterior20',
  xsd: 'http://www.sat.gob.mx/sitio_internet/cfd/ComercioExterior20/ComercioExterior20.xsd',
} as const;

const domicilioNode = (d: DomicilioComercioExteriorModel) => domicilioNodeOf('cce20:Domicilio', d);

const mercanciaNode = (m: MercanciaComercioExteriorModel) =>
  el(
    'cce20:Mercancia',
    {
      NoIdentificacion: m.noIdentificacion,
      FraccionArancelaria: m.fraccionArancelaria,
      CantidadAduana: m.cantidadAduana?.toString(),
      UnidadAduana: m.unidadAduana,
      ValorUnitarioAduana: m.valorUnitarioAduana?.toString(),
      ValorDolares: m.valorDolares.toString(),
    },
    m.descripcionesEspecificas.map((d) =>
      el('cce20:DescripcionesEspecificas', { Marca: d.marca, Modelo: d.modelo, SubModelo: d.subModelo, NumeroSerie: d.numeroSerie }),
    ),
  );

/** cce20:ComercioExterior, children in ComercioExterior20.xsd's sequence: Emisor, Propietario*, Receptor, Destinatario*, Mercancias. */
export function comercioExteriorNode(m: ComercioExteriorModel): XmlNode {
  return el(
    'cce20:ComercioExterior',
    {
      Version: '2.0',
      MotivoTraslado: m.motivoTraslado,
      ClaveDePedimento: m.claveDePedimento,
      CertificadoOrigen: m.certificadoOrigen,
      NumCertificadoOrigen: m.numCertificadoOrigen,
      NumeroExportadorConfiable: m.numeroExportadorConfiable,
      Incoterm: m.incoterm,
      Observaciones: m.observaciones,
      TipoCambioUSD: m.tipoCambioUSD.toString(),
      TotalUSD: m.totalUSD.toString(),
    },
    [
      el('cce20:Emisor', { Curp: m.emisor.curp }, [domicilioNode(m.emisor.domicilio)]),
      ...m.propietarios.map((p) => el('cce20:Propietario', { NumRegIdTrib: p.numRegIdTrib, ResidenciaFiscal: p.residenciaFiscal })),
      m.receptor && el('cce20:Receptor', { NumRegIdTrib: m.receptor.numRegIdTrib }, [m.receptor.domicilio && domicilioNode(m.receptor.domicilio)]),
      ...m.destinatarios.map((d) => el('cce20:Destinatario', { NumRegIdTrib: d.numRegIdTrib, Nombre: d.nombre }, d.domicilios.map(domicilioNode))),
      el('cce20:Mercancias', {}, m.mercancias.map(mercanciaNode)),
    ],
  );
}
