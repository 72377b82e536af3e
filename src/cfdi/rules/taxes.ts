import { catalogEntry, catalogRows, inForce } from '../../catalogs/index.ts';
import { Dec } from '../decimal.ts';
import type { Fail, TaxInput } from '../input.ts';
import type { TaxLine } from '../model.ts';

const IMPUESTO_NAME: Record<string, string> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };

/** Whether `tasa` is allowed for the tax in c_TasaOCuota (a fixed value, or within a range). */
function tasaAllowed(impuesto: string, factor: string, kind: 'traslado' | 'retencion', tasa: Dec, day: string): boolean {
  const name = IMPUESTO_NAME[impuesto];
  return catalogRows('c_TasaOCuota').some((r) => {
    if (!inForce(r, day) || r.factor !== factor || r[kind] !== '1') return false;
    if (!(r.impuesto === name || (name === 'IVA' && r.impuesto!.startsWith('IVA')))) return false;
    const max = Dec.parse(r.valor_maximo!);
    return r.rango_o_fijo === 'Fijo' ? max.cmp(tasa) === 0 : Dec.parse(r.valor_minimo || '0').cmp(tasa) <= 0 && tasa.cmp(max) <= 0;
  });
}

/**
 * SAT's window for a tax Importe written with `decimals` decimals (docs/sat-rules.md §2, CFDI40180/40186, CRP20254/20261):
 * [trunc((Base − ½·10^−dB)·Tasa), ceil((Base + ½·10^−dB − 10^−12)·Tasa)].
 */
export function importeWindow(base: Dec, tasa: Dec, decimals: number): { low: Dec; high: Dec } {
  const half = Dec.parse(`0.${'0'.repeat(base.decimals)}5`);
  return {
    low: base.sub(half).mul(tasa).trunc(decimals),
    high: base.add(half).sub(Dec.parse('0.000000000001')).mul(tasa).ceil(decimals),
  };
}

/** The SAT codes of each check, which differ between concept taxes (CFDI40xxx) and a payment's DR taxes (CRP20xxx). */
export interface TaxRuleCodes {
  base: string;
  impuesto: string;
  tasa: string;
  importe: string;
  /** Exento in a retención. */
  exentoRetencion: string;
  /** Exento with tasa or importe. */
  exentoBare: string;
  /** Tasa/Cuota without tasa_o_cuota (or, for sent lines, importe). */
  required: string;
}

/**
 * Checks one tax line as sent and returns it with exact amounts. With `computed` (concept taxes) an absent base is
 * importe − descuento and an absent importe base × tasa, at `computed.decimals`; without it (a document issued
 * elsewhere, whose amounts only the caller knows) base, tasa and importe must all be sent.
 */
export function prepareTaxLine(
  t: TaxInput,
  at: string,
  kind: 'traslado' | 'retencion',
  codes: TaxRuleCodes,
  day: string,
  fail: Fail,
  computed?: { base: Dec; decimals: number },
): TaxLine | undefined {
  const written = (d: Dec) => d.round(6).trim(computed!.decimals);
  if (t.base === undefined && !computed) {
    fail(`${at}.base`, 'is required: the base of the amount paid (BaseDR)', codes.base);
    return undefined;
  }
  const base = t.base !== undefined ? Dec.parse(t.base) : written(computed!.base);
  if (!(base.cmp(Dec.ZERO) > 0)) fail(`${at}.base`, computed ? 'must be greater than 0 (importe − descuento is 0)' : 'must be greater than 0', codes.base);
  const imp = catalogEntry('c_Impuesto', t.impuesto);
  if (imp?.[kind] !== '1') fail(`${at}.impuesto`, `${t.impuesto} is not a ${kind} tax in c_Impuesto`, codes.impuesto);
  if (t.tipo_factor === 'Exento') {
    if (kind === 'retencion') fail(`${at}.tipo_factor`, 'Exento is not allowed in a retencion', codes.exentoRetencion);
    else if (t.tasa_o_cuota !== undefined || t.importe !== undefined) fail(at, 'an Exento traslado carries neither tasa_o_cuota nor importe', codes.exentoBare);
    return { base, impuesto: t.impuesto, tipoFactor: 'Exento' };
  }
  if (!computed && (t.tasa_o_cuota === undefined || t.importe === undefined)) {
    fail(at, `tasa_o_cuota and importe are required with tipo_factor ${t.tipo_factor}`, codes.required);
    return undefined;
  }
  if (t.tasa_o_cuota === undefined) {
    fail(`${at}.tasa_o_cuota`, `is required with tipo_factor ${t.tipo_factor}`, codes.required);
    return { base, impuesto: t.impuesto, tipoFactor: t.tipo_factor };
  }
  const tasa = Dec.parse(t.tasa_o_cuota);
  if (!tasaAllowed(t.impuesto, t.tipo_factor, kind, tasa, day)) {
    fail(
      `${at}.tasa_o_cuota`,
      `${t.tasa_o_cuota} is not a c_TasaOCuota value for ${IMPUESTO_NAME[t.impuesto] ?? t.impuesto} ${t.tipo_factor} (${kind})`,
      codes.tasa,
    );
  }
  const exact = base.mul(tasa);
  let importe: Dec;
  if (t.importe !== undefined) {
    importe = Dec.parse(t.importe);
    const { low, high } = importeWindow(base, tasa, importe.decimals);
    if (importe.cmp(low) < 0 || importe.cmp(high) > 0)
      fail(`${at}.importe`, `must be between ${low.toString()} and ${high.toString()} (base × tasa_o_cuota = ${exact.toString()})`, codes.importe);
  } else {
    importe = written(exact);
  }
  return { base, impuesto: t.impuesto, tipoFactor: t.tipo_factor, tasaOCuota: tasa.round(6).toString(), importe };
}

/** Tax lines summed per impuesto, tipo factor and tasa, in the order each first appears (bases and importes exact). */
export function sumByTax(lines: TaxLine[]): TaxLine[] {
  const groups = new Map<string, TaxLine>();
  for (const t of lines) {
    const key = `${t.impuesto}|${t.tipoFactor}|${t.tasaOCuota ?? ''}`;
    const g = groups.get(key);
    groups.set(key, g ? { ...g, base: g.base.add(t.base), importe: g.importe && t.importe ? g.importe.add(t.importe) : (g.importe ?? t.importe) } : { ...t });
  }
  return [...groups.values()];
}
