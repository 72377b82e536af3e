import { isValidKey } from '../../catalogs/index.ts';
import type { ComprobanteInput, Fail, TipoDeComprobante } from '../input.ts';
import type { ComprobanteModel } from '../model.ts';

/**
 * Which voucher types each new type may relate to, per TipoRelacion (Guía de llenado; docs/sat-rules.md §7): an Egreso
 * corrects invoices, a Traslado moves invoiced goods (05), and P, N and T replace only their own kind (04).
 * An Ingreso is not restricted here.
 */
export const RELATES_TO: Partial<Record<TipoDeComprobante, Record<string, string[]>>> = {
  E: { '01': ['I', 'E'], '02': ['I', 'E'], '03': ['I', 'T'], '04': ['E'], '06': ['T'], '07': ['I', 'E'] },
  T: { '04': ['T'], '05': ['I', 'E'] },
  P: { '04': ['P'] },
  N: { '04': ['N'] },
};

/** A voucher type as a sentence names it: "an Egreso relates to …". */
export const TIPO_NAME: Record<TipoDeComprobante, string> = { I: 'an Ingreso', E: 'an Egreso', T: 'a Traslado', P: 'a Pago', N: 'a Nómina' };

/** CfdiRelacionados (CFDI40137). A P or N relates only to the one it replaces (04). */
export function prepareRelacionados(req: ComprobanteInput, day: string, fail: Fail): ComprobanteModel['relacionados'] {
  const { tipo } = req;
  return (req.cfdi_relacionados ?? []).map((r, i) => {
    if (!isValidKey('c_TipoRelacion', r.tipo_relacion, day)) fail(`cfdi_relacionados[${i}].tipo_relacion`, 'is not a c_TipoRelacion key', 'CFDI40137');
    else if ((tipo === 'P' || tipo === 'N') && r.tipo_relacion !== '04')
      fail(`cfdi_relacionados[${i}].tipo_relacion`, `a ${tipo === 'P' ? 'Pago' : 'Nómina'} relates only to the CFDI it replaces (04)`, 'CFDI40137');
    return { tipoRelacion: r.tipo_relacion, uuids: r.uuids.map((u) => u.toUpperCase()) };
  });
}
