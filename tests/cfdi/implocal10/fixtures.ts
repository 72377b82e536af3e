import type { ImpuestosLocalesInput } from '../../../src/cfdi/complements/implocal10/input.ts';
import type { ImpuestosLocalesContext, ImpuestosLocalesModel } from '../../../src/cfdi/complements/implocal10/model.ts';
import { prepareImpuestosLocales } from '../../../src/cfdi/complements/implocal10/rules.ts';
import { Dec } from '../../../src/cfdi/decimal.ts';
import type { FieldProblem } from '../../../src/cfdi/input.ts';

/** A hotel night: 1,500.00 of lodging with IVA 16 % (240.00); the Total before local taxes is 1,740.00. */
export const HOTEL: ImpuestosLocalesContext = { tipo: 'I', subTotal: Dec.parse('1500.00'), total: Dec.parse('1740.00') };
export const ISH: ImpuestosLocalesInput = { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3' }] };

/**
 * Professional fees of 10,000.00 to a company: IVA 1,600.00, ISR withheld 1,000.00, IVA withheld 1,066.67, so the
 * federal Total is 9,533.33; the state withholds its cedular tax of 2 %.
 */
export const HONORARIOS: ImpuestosLocalesContext = { tipo: 'I', subTotal: Dec.parse('10000.00'), total: Dec.parse('9533.33') };
export const CEDULAR: ImpuestosLocalesInput = { retenciones: [{ imp_loc_retenido: 'Impuesto cedular', tasa_de_retencion: '2' }] };

export function run(req: ImpuestosLocalesInput, ctx: ImpuestosLocalesContext = HOTEL): { model: ImpuestosLocalesModel; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const model = prepareImpuestosLocales(req, ctx, (field, issue, rule) => problems.push({ field, issue, rule }));
  return { model, problems };
}
