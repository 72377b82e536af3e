import { Dec, sum } from '../decimal.ts';
import type { Fail } from '../input.ts';
import type { ComprobanteModel, ConceptoModel, TaxLine } from '../model.ts';
import { sumByTax } from './taxes.ts';

/**
 * Totals at the currency's decimals (CFDI40108, 40111, 40119, 40203–40221), from the concept values as written;
 * undefined when the total would be negative (reported).
 */
export function prepareTotals(
  conceptos: ConceptoModel[],
  decimals: number,
  fail: Fail,
): Pick<ComprobanteModel, 'subTotal' | 'descuento' | 'total' | 'impuestos'> | undefined {
  const subTotal = sum(conceptos.map((c) => c.importe)).round(decimals);
  const withDiscount = conceptos.filter((c) => c.descuento);
  const descuento = withDiscount.length ? sum(withDiscount.map((c) => c.descuento!)).round(decimals) : undefined;
  const impuestos = summarizeTaxes(conceptos, decimals);
  let total = subTotal.sub(descuento ?? Dec.ZERO);
  if (impuestos?.totalTrasladados) total = total.add(impuestos.totalTrasladados);
  if (impuestos?.totalRetenidos) total = total.sub(impuestos.totalRetenidos);
  if (total.isNegative()) {
    fail('conceptos', `the total would be negative (${total.toString()}): retenciones and descuentos exceed the amount`, 'CFDI40119');
    return undefined;
  }
  return { subTotal, descuento, total: total.round(decimals), impuestos };
}

/** Comprobante-level Impuestos: one traslado per (impuesto, factor, tasa), one retencion per impuesto. */
function summarizeTaxes(conceptos: ConceptoModel[], decimals: number): ComprobanteModel['impuestos'] {
  const retenciones = new Map<string, Dec[]>();
  for (const r of conceptos.flatMap((c) => c.retenciones)) retenciones.set(r.impuesto, [...(retenciones.get(r.impuesto) ?? []), r.importe!]);
  const traslados = sumByTax(conceptos.flatMap((c) => c.traslados));
  if (traslados.length === 0 && retenciones.size === 0) return undefined;
  const trasladoLines: TaxLine[] = traslados
    .sort((a, b) => a.impuesto.localeCompare(b.impuesto))
    .map((t) => ({ ...t, base: t.base.round(decimals), importe: t.tipoFactor === 'Exento' ? undefined : (t.importe ?? Dec.ZERO).round(decimals) }));
  const retencionLines = [...retenciones.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([impuesto, importes]) => ({ impuesto, importe: sum(importes).round(decimals) }));
  const nonExempt = trasladoLines.filter((t) => t.tipoFactor !== 'Exento');
  return {
    traslados: trasladoLines,
    retenciones: retencionLines,
    totalTrasladados: nonExempt.length ? sum(nonExempt.map((t) => t.importe!)).round(decimals) : undefined,
    totalRetenidos: retencionLines.length ? sum(retencionLines.map((r) => r.importe)).round(decimals) : undefined,
  };
}
