import { catalogRows, inForce } from '../../catalogs/index.ts';
import { Dec } from '../decimal.ts';

export const IMPUESTO_NAME: Record<string, string> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };

/** Whether `tasa` is allowed for the tax in c_TasaOCuota (a fixed value, or within a range). */
export function tasaAllowed(impuesto: string, factor: string, kind: 'traslado' | 'retencion', tasa: Dec, day: string): boolean {
  const name = IMPUESTO_NAME[impuesto];
  return catalogRows('c_TasaOCuota').some((r) => {
    if (!inForce(r, day) || r.factor !== factor || r[kind] !== '1') return false;
    if (!(r.impuesto === name || (name === 'IVA' && r.impuesto!.startsWith('IVA')))) return false;
    const max = Dec.parse(r.valor_maximo!);
    return r.rango_o_fijo === 'Fijo' ? max.cmp(tasa) === 0 : Dec.parse(r.valor_minimo || '0').cmp(tasa) <= 0 && tasa.cmp(max) <= 0;
  });
}

/**
 * SAT's window for a tax Importe written with `decimals` decimals (RULES §2.3, CFDI40180/40186, CRP20254/20261):
 * [trunc((Base − ½·10^−dB)·Tasa), ceil((Base + ½·10^−dB − 10^−12)·Tasa)].
 */
export function importeWindow(base: Dec, tasa: Dec, decimals: number): { low: Dec; high: Dec } {
  const half = Dec.parse(`0.${'0'.repeat(base.decimals)}5`);
  return {
    low: base.sub(half).mul(tasa).trunc(decimals),
    high: base.add(half).sub(Dec.parse('0.000000000001')).mul(tasa).ceil(decimals),
  };
}
