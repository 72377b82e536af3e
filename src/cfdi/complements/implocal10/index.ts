import type { Complement } from '../complement.ts';
import { sum } from '../../decimal.ts';
import { IMPUESTOS_LOCALES_10 } from './cadena.ts';
import type { ImpuestosLocalesInput } from './input.ts';
import type { ImpuestosLocalesModel } from './model.ts';
import { impuestosLocalesTotalLines, renderImpuestosLocales } from './pdf.ts';
import { checkTotal, prepareImpuestosLocales } from './rules.ts';
import { IMPUESTOS_LOCALES_NS, impuestosLocalesNode } from './xml.ts';

/** GET's view: the two totals and each line, amounts as exact decimal text. */
interface ImpuestosLocalesSummary {
  total_de_traslados: string;
  total_de_retenciones: string;
  traslados: { imp_loc_trasladado: string; tasa_de_traslado: string; importe: string }[];
  retenciones: { imp_loc_retenido: string; tasa_de_retencion: string; importe: string }[];
}

/**
 * Complemento de Impuestos Locales 1.0 (tipo I and E): the state and municipal taxes of the CFDI, which SAT's guide
 * adds to its Total (adjustTotals). Its base is the conceptos' Σ Importe − Σ Descuento, as prepareTotals will write
 * SubTotal and Descuento, unless a line sends its own (docs/impuestos-locales.md).
 */
export const implocal10: Complement<'impuestos_locales', 'impuestosLocales', ImpuestosLocalesInput, ImpuestosLocalesModel, object, ImpuestosLocalesSummary> = {
  input: 'impuestos_locales',
  model: 'impuestosLocales',
  element: 'implocal:ImpuestosLocales',
  prefix: IMPUESTOS_LOCALES_NS.prefix,
  namespace: IMPUESTOS_LOCALES_NS.uri,
  schemaLocation: IMPUESTOS_LOCALES_NS.xsd,
  prepare(input, { tipo, conceptos, decimals }, _context, fail) {
    const subTotal = sum(conceptos.map((c) => c.importe)).round(decimals);
    const discounted = conceptos.filter((c) => c.descuento);
    const descuento = discounted.length ? sum(discounted.map((c) => c.descuento!)).round(decimals) : undefined;
    // implocal.xsd's amounts have two decimals: in a currency without cents the Total could not carry them.
    if (decimals < 2) fail('impuestos_locales', `needs a currency with cents: its amounts have two decimals, the Total of this one has ${decimals}`);
    return prepareImpuestosLocales(input, { tipo, subTotal, descuento }, fail);
  },
  adjustTotals: (model, totals, fail) => ({ ...totals, total: checkTotal(model, totals.total, fail) }),
  node: impuestosLocalesNode,
  cadena: IMPUESTOS_LOCALES_10,
  pdf: { render: renderImpuestosLocales, totalLines: impuestosLocalesTotalLines },
  summary: (m) => ({
    total_de_traslados: m.totaldeTraslados.toString(),
    total_de_retenciones: m.totaldeRetenciones.toString(),
    traslados: m.traslados.map((t) => ({
      imp_loc_trasladado: t.impLocTrasladado,
      tasa_de_traslado: t.tasadeTraslado.toString(),
      importe: t.importe.toString(),
    })),
    retenciones: m.retenciones.map((r) => ({
      imp_loc_retenido: r.impLocRetenido,
      tasa_de_retencion: r.tasadeRetencion.toString(),
      importe: r.importe.toString(),
    })),
  }),
};
