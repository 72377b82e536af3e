import { Dec, sum } from '../../decimal.ts';
import type { Fail } from '../../input.ts';
import { importeWindow } from '../../rules/taxes.ts';
import type { ImpuestosLocalesInput } from './input.ts';
import type { ImpuestosLocalesContext, ImpuestosLocalesModel } from './model.ts';

/**
 * Complemento de Impuestos Locales 1.0: request → checked model (the node is in xml.ts). Pure.
 *
 * Base: a line's `base` when sent, else the comprobante's SubTotal − Descuento (what the federal taxes of a
 * one-concepto invoice rest on; a hotel bill with food and lodging sends the lodging as `base`). SAT's schema has no
 * Base attribute, so the base only computes Importe = base × tasa ÷ 100, two decimals (implocal.xsd: fractionDigits 2).
 *
 * Rule codes: SAT publishes no error matrix for implocal, so no check below carries a code (as Carta Porte's checks
 * without one); each names its field and says what is wrong. A sent importe is held to the window SAT gives federal
 * taxes (CFDI40180, rules/taxes.ts), with the rate as a fraction.
 */
export function prepareImpuestosLocales(req: ImpuestosLocalesInput, ctx: ImpuestosLocalesContext, fail: Fail): ImpuestosLocalesModel {
  if (ctx.tipo !== 'I' && ctx.tipo !== 'E') fail(at(''), `is issued on tipo I and E only, not ${ctx.tipo}`);
  const retencionesIn = req.retenciones ?? [];
  const trasladosIn = req.traslados ?? [];
  if (retencionesIn.length === 0 && trasladosIn.length === 0) fail(at(''), 'needs at least one of retenciones or traslados');

  const baseComprobante = ctx.subTotal.sub(ctx.descuento ?? Dec.ZERO);
  const line = (path: string, nombre: string, tasaText: string, baseText: string | undefined, importeText: string | undefined) =>
    prepareLine(path, { nombre, tasaText, baseText, importeText }, baseComprobante, fail);

  const retenciones = retencionesIn.map((r, i) => {
    const l = line(`retenciones[${i}]`, r.imp_loc_retenido, r.tasa_de_retencion, r.base, r.importe);
    return { impLocRetenido: l.nombre, tasadeRetencion: l.tasa, importe: l.importe };
  });
  const traslados = trasladosIn.map((t, i) => {
    const l = line(`traslados[${i}]`, t.imp_loc_trasladado, t.tasa_de_traslado, t.base, t.importe);
    return { impLocTrasladado: l.nombre, tasadeTraslado: l.tasa, importe: l.importe };
  });
  repeated(
    'retenciones',
    retenciones.map((r) => [r.impLocRetenido, r.tasadeRetencion]),
    'imp_loc_retenido',
    fail,
  );
  repeated(
    'traslados',
    traslados.map((t) => [t.impLocTrasladado, t.tasadeTraslado]),
    'imp_loc_trasladado',
    fail,
  );

  const model: ImpuestosLocalesModel = {
    retenciones,
    traslados,
    totaldeRetenciones: sum(retenciones.map((r) => r.importe)).round(2),
    totaldeTraslados: sum(traslados.map((t) => t.importe)).round(2),
  };
  if (ctx.total) checkTotal(model, ctx.total, fail);
  return model;
}

/** The local retenciones may not take the Total below zero; returns the Total with the local taxes. */
export function checkTotal(model: ImpuestosLocalesModel, federalTotal: Dec, fail: Fail): Dec {
  const total = federalTotal.add(totalAdjustment(model));
  if (total.isNegative())
    fail(at('retenciones'), `add up to more than the comprobante's Total (${federalTotal.toString()}): the Total would be ${total.toString()}`);
  return total;
}

/**
 * What the comprobante's Total changes by: TotaldeTraslados − TotaldeRetenciones. SAT's guide for the complement
 * (Total = SubTotal − Descuento + federal traslados − federal retenciones + local traslados − local retenciones).
 */
export const totalAdjustment = (m: ImpuestosLocalesModel): Dec => m.totaldeTraslados.sub(m.totaldeRetenciones);

/** Field path as the request spells it, under the complement's key. */
const at = (path: string) => (path ? `impuestos_locales.${path}` : 'impuestos_locales');

const HUNDRED = Dec.parse('100');

function parse(path: string, text: string | undefined, fail: Fail): Dec | undefined {
  if (text === undefined) return undefined;
  try {
    return Dec.parse(text);
  } catch {
    fail(at(path), `must be a decimal number, not ${JSON.stringify(text)}`);
    return undefined;
  }
}

/** implocal.xsd: fractionDigits 2 (trailing zeros aside, which are dropped). */
function twoDecimals(path: string, d: Dec, fail: Fail): Dec {
  if (d.trim().decimals > 2) fail(at(path), `must have at most two decimals (implocal.xsd): ${d.toString()}`);
  return d.decimals > 2 ? d.trim() : d;
}

interface LineInput {
  nombre: string;
  tasaText: string;
  baseText: string | undefined;
  importeText: string | undefined;
}

function prepareLine(path: string, l: LineInput, baseComprobante: Dec, fail: Fail): { nombre: string; tasa: Dec; importe: Dec } {
  const [nombreField, tasaField] = path.startsWith('retenciones') ? ['imp_loc_retenido', 'tasa_de_retencion'] : ['imp_loc_trasladado', 'tasa_de_traslado'];
  // The cadena writes it normalize-space'd: a name of blanks only would be an empty value.
  const nombre = l.nombre.trim();
  if (nombre === '') fail(at(`${path}.${nombreField}`), 'must name the local tax (it is empty)');

  let tasa = parse(`${path}.${tasaField}`, l.tasaText, fail);
  if (tasa) {
    if (tasa.cmp(Dec.ZERO) <= 0) fail(at(`${path}.${tasaField}`), `must be a percentage greater than 0, not ${tasa.toString()}`);
    else if (tasa.cmp(HUNDRED) > 0) fail(at(`${path}.${tasaField}`), `is a percentage (3 for 3 %): at most 100, not ${tasa.toString()}`);
    tasa = twoDecimals(`${path}.${tasaField}`, tasa, fail);
  } else tasa = Dec.ZERO;

  let base = baseComprobante;
  const baseSent = parse(`${path}.base`, l.baseText, fail);
  if (baseSent) {
    if (baseSent.cmp(Dec.ZERO) <= 0) fail(at(`${path}.base`), `must be greater than 0, not ${baseSent.toString()}`);
    else if (baseSent.cmp(baseComprobante) > 0)
      fail(at(`${path}.base`), `must not exceed the comprobante's SubTotal − Descuento (${baseComprobante.toString()}), not ${baseSent.toString()}`);
    else base = baseSent;
  }

  // Exact (the rate has at most two decimals): base × tasa ÷ 100.
  const fraction = tasa.div(HUNDRED, tasa.decimals + 2);
  const computed = base.mul(fraction).round(2);
  const sent = parse(`${path}.importe`, l.importeText, fail);
  if (!sent) return { nombre, tasa, importe: computed };
  if (sent.isNegative()) {
    fail(at(`${path}.importe`), `must not be negative: ${sent.toString()}`);
    return { nombre, tasa, importe: computed };
  }
  const importe = twoDecimals(`${path}.importe`, sent, fail);
  const { low, high } = importeWindow(base, fraction, 2);
  if (importe.cmp(low) < 0 || importe.cmp(high) > 0)
    fail(
      at(`${path}.importe`),
      `must be between ${low.toString()} and ${high.toString()} (base ${base.toString()} × ${tasa.toString()} % = ${computed.toString()})`,
    );
  return { nombre, tasa, importe: importe.round(2) };
}

/** The same tax at the same rate listed twice is one tax counted twice. */
function repeated(path: string, lines: [string, Dec][], nombreField: string, fail: Fail): void {
  const seen = new Set<string>();
  lines.forEach(([nombre, tasa], i) => {
    const key = `${nombre.toUpperCase()}|${tasa.trim().toString()}`;
    if (seen.has(key)) fail(at(`${path}[${i}].${nombreField}`), `${nombre} at ${tasa.toString()} % is listed twice`);
    seen.add(key);
  });
}
