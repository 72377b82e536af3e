import type { RetencionComplement } from '../complement.ts';
import { renderPagosAExtranjeros } from './pdf.ts';
import { PAGOS_A_EXTRANJEROS_10 } from './cadena.ts';
import type { PagosAExtranjerosInput } from './input.ts';
import type { PagosAExtranjerosModel } from './model.ts';
import { preparePagosAExtranjeros } from './rules.ts';
import { PAGOS_A_EXTRANJEROS_NS, pagosAExtranjerosNode } from './xml.ts';

/** Complemento de Pagos a Extranjeros 1.0: payments to foreign residents and who benefits from them. */
export const pagosaextranjeros10: RetencionComplement<'pagos_a_extranjeros', 'pagosAExtranjeros', PagosAExtranjerosInput, PagosAExtranjerosModel> = {
  title: 'Pagos a extranjeros',
  input: 'pagos_a_extranjeros',
  model: 'pagosAExtranjeros',
  element: 'pagosaextranjeros:Pagosaextranjeros',
  prefix: PAGOS_A_EXTRANJEROS_NS.prefix,
  namespace: PAGOS_A_EXTRANJEROS_NS.uri,
  schemaLocation: PAGOS_A_EXTRANJEROS_NS.xsd,
  xsd: 'pagosaextranjeros.xsd',
  prepare: preparePagosAExtranjeros,
  node: pagosAExtranjerosNode,
  pdf: renderPagosAExtranjeros,
  cadena: PAGOS_A_EXTRANJEROS_10,
};
