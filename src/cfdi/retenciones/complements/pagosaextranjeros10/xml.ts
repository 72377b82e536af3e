import { el, type XmlNode } from '../../../xml.ts';
import type { PagosAExtranjerosModel } from './model.ts';

export const PAGOS_A_EXTRANJEROS_NS = {
  prefix: 'pagosaextranjeros',
  uri: 'http://www.sat.gob.mx/esquemas/retencionpago/1/pagosaextranjeros',
  xsd: 'http://www.sat.gob.mx/esquemas/retencionpago/1/pagosaextranjeros/pagosaextranjeros.xsd',
} as const;

export function pagosAExtranjerosNode(m: PagosAExtranjerosModel): XmlNode {
  const n = m.noBeneficiario;
  const b = m.beneficiario;
  return el('pagosaextranjeros:Pagosaextranjeros', { Version: '1.0', EsBenefEfectDelCobro: m.esBenefEfectDelCobro }, [
    n &&
      el('pagosaextranjeros:NoBeneficiario', {
        PaisDeResidParaEfecFisc: n.paisDeResidParaEfecFisc,
        ConceptoPago: n.conceptoPago,
        DescripcionConcepto: n.descripcionConcepto,
      }),
    b &&
      el('pagosaextranjeros:Beneficiario', {
        RFC: b.rfc,
        CURP: b.curp,
        NomDenRazSocB: b.nomDenRazSocB,
        ConceptoPago: b.conceptoPago,
        DescripcionConcepto: b.descripcionConcepto,
      }),
  ]);
}
