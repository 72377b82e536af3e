import type { Complement } from '../complement.ts';
import { CARTA_PORTE_31 } from './cadena.ts';
import type { CartaPorteInput } from './input.ts';
import type { CartaPorteModel } from './model.ts';
import { cartaPorteQr, renderCartaPorte } from './pdf.ts';
import { prepareCartaPorte } from './rules.ts';
import { cartaPorteNode } from './xml.ts';

interface CartaPorteContext {
  /** Carta Porte: a new IdCCP for a request that sends none ("CCC" + the rest of a random UUID; the caller's randomness). */
  newIdCcp?: () => string;
}

/** GET's view: the identifier and the totals computed. */
interface CartaPorteSummary {
  id_ccp: string;
  total_dist_rec?: string;
  peso_bruto_total: string;
  unidad_peso: string;
  num_total_mercancias: number;
}

/** Complemento Carta Porte 3.1: rides on a Traslado (own goods) or an Ingreso (a carrier's freight). */
export const cartaporte31: Complement<'carta_porte', 'cartaPorte', CartaPorteInput, CartaPorteModel, CartaPorteContext, CartaPorteSummary> = {
  input: 'carta_porte',
  model: 'cartaPorte',
  element: 'cartaporte31:CartaPorte',
  prefix: 'cartaporte31',
  namespace: 'http://www.sat.gob.mx/CartaPorte31',
  schemaLocation: 'http://www.sat.gob.mx/sitio_internet/cfd/CartaPorte/CartaPorte31.xsd',
  prepare(input, facts, { newIdCcp }, fail) {
    const { tipo } = facts;
    if (tipo !== 'I' && tipo !== 'T') {
      fail('carta_porte', 'is only for tipo T (own goods moved) or I (a carrier billing the freight)', 'CP114');
      return undefined;
    }
    if (!newIdCcp && !input.id_ccp) fail('carta_porte.id_ccp', 'is required: no IdCCP source was given');
    const comprobante = {
      tipo,
      moneda: facts.moneda,
      receptorRfc: facts.receptor.rfc,
      usoCfdi: facts.receptor.usoCfdi,
      receptorField: facts.receptorField,
      conceptos: facts.conceptos.map((c) => c.claveProdServ),
    };
    return prepareCartaPorte(input, { comprobante, fecha: facts.fecha, emisorRfc: facts.emisor.rfc, newIdCcp: newIdCcp ?? (() => '') }, fail);
  },
  node: cartaPorteNode,
  cadena: CARTA_PORTE_31,
  pdf: { render: renderCartaPorte, afterTotals: true, qr: cartaPorteQr },
  summary: (m) => ({
    id_ccp: m.idCcp,
    total_dist_rec: m.totalDistRec?.toString(),
    peso_bruto_total: m.mercancias.pesoBrutoTotal.toString(),
    unidad_peso: m.mercancias.unidadPeso,
    num_total_mercancias: m.mercancias.numTotalMercancias,
  }),
};
