import type { Complement } from '../complement.ts';
import { COMERCIO_EXTERIOR_20 } from './cadena.ts';
import type { ComercioExteriorInput, DomicilioComercioExteriorInput } from './input.ts';
import type { ComercioExteriorModel } from './model.ts';
import { renderComercioExterior } from './pdf.ts';
import { prepareComercioExterior } from './rules/index.ts';
import { COMERCIO_EXTERIOR_NS, comercioExteriorNode } from './xml.ts';

interface ComercioExteriorContext {
  /** The issuer's fiscal address from its profile; a request's comercio_exterior.emisor.domicilio takes its place. */
  emisorDomicilio?: DomicilioComercioExteriorInput;
}

/** GET's view: the header's keys and the amounts computed. */
interface ComercioExteriorSummary {
  clave_de_pedimento: string;
  incoterm?: string;
  motivo_traslado?: string;
  tipo_cambio_usd: string;
  total_usd: string;
  num_mercancias: number;
}

/** Complemento de Comercio Exterior 2.0: rides on an Ingreso or a Traslado with Exportacion 02 (definitive export). */
export const comercioexterior20: Complement<
  'comercio_exterior',
  'comercioExterior',
  ComercioExteriorInput,
  ComercioExteriorModel,
  ComercioExteriorContext,
  ComercioExteriorSummary
> = {
  input: 'comercio_exterior',
  model: 'comercioExterior',
  element: 'cce20:ComercioExterior',
  prefix: COMERCIO_EXTERIOR_NS.prefix,
  namespace: COMERCIO_EXTERIOR_NS.uri,
  schemaLocation: COMERCIO_EXTERIOR_NS.xsd,
  prepare(input, facts, { emisorDomicilio }, fail) {
    const { receptor } = facts;
    return prepareComercioExterior(
      input,
      {
        tipo: facts.tipo,
        exportacion: facts.exportacion,
        moneda: facts.moneda,
        tipoCambio: facts.tipoCambio,
        fecha: facts.fecha,
        emisor: { rfc: facts.emisor.rfc, domicilio: input.emisor?.domicilio ?? emisorDomicilio },
        receptor: { rfc: receptor.rfc, residenciaFiscal: receptor.residenciaFiscal, numRegIdTrib: receptor.numRegIdTrib },
        receptorField: facts.receptorField,
        conceptos: facts.conceptos.map((c) => ({
          noIdentificacion: c.noIdentificacion,
          cantidad: c.cantidad,
          claveUnidad: c.claveUnidad,
          valorUnitario: c.valorUnitario,
          importe: c.importe,
          descuento: c.descuento,
        })),
        relacionados: facts.relacionados,
      },
      fail,
    );
  },
  node: comercioExteriorNode,
  cadena: COMERCIO_EXTERIOR_20,
  pdf: { render: renderComercioExterior, afterTotals: true },
  summary: (m) => ({
    clave_de_pedimento: m.claveDePedimento,
    incoterm: m.incoterm,
    motivo_traslado: m.motivoTraslado,
    tipo_cambio_usd: m.tipoCambioUSD.toString(),
    total_usd: m.totalUSD.toString(),
    num_mercancias: m.mercancias.length,
  }),
};
