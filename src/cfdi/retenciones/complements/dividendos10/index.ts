import type { RetencionComplement } from '../complement.ts';
import { renderDividendos } from './pdf.ts';
import { DIVIDENDOS_10 } from './cadena.ts';
import type { DividendosInput } from './input.ts';
import type { DividendosModel } from './model.ts';
import { prepareDividendos } from './rules.ts';
import { DIVIDENDOS_NS, dividendosNode } from './xml.ts';

/** Complemento de Dividendos 1.0: dividends or profits distributed (CveRetenc 14) and the remanente distribuible. */
export const dividendos10: RetencionComplement<'dividendos', 'dividendos', DividendosInput, DividendosModel> = {
  title: 'Dividendos',
  input: 'dividendos',
  model: 'dividendos',
  element: 'dividendos:Dividendos',
  prefix: DIVIDENDOS_NS.prefix,
  namespace: DIVIDENDOS_NS.uri,
  schemaLocation: DIVIDENDOS_NS.xsd,
  xsd: 'dividendos.xsd',
  prepare: prepareDividendos,
  node: dividendosNode,
  pdf: renderDividendos,
  cadena: DIVIDENDOS_10,
};
