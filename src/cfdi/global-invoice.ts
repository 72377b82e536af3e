import { Dec } from './decimal.ts';
import type { ComprobanteInput, ConceptoInput, FieldProblem, ReceptorInput, TaxInput } from './input.ts';
import type { ComprobanteModel, TaxLine } from './model.ts';
import { importeWindow, sumByTax } from './rules/taxes.ts';

/**
 * The global invoice (factura global) to the general public for the sales nobody invoiced, as SAT's Anexo 20 guide
 * fills it: receptor XAXX010101000 "PUBLICO EN GENERAL", régimen 616, uso S01, the issuer's postal code;
 * InformacionGlobal with the period; one concepto per ticket (ClaveProdServ 01010101, ClaveUnidad ACT, Cantidad 1,
 * the ticket's number as NoIdentificacion, its subtotal as ValorUnitario, its discount and its taxes summed per
 * impuesto, factor and tasa). Pure: the service finds the tickets.
 */

export const PUBLICO_EN_GENERAL = (codigoPostal: string): ReceptorInput => ({
  rfc: 'XAXX010101000',
  nombre: 'PUBLICO EN GENERAL',
  regimen_fiscal: '616',
  domicilio_fiscal: codigoPostal,
  uso_cfdi: 'S01',
});

/** c_Periodicidad: 01 diario, 02 semanal, 03 quincenal, 04 mensual, 05 bimestral (régimen 621 only). */
export type Periodicidad = '01' | '02' | '03' | '04' | '05';

/** A ticket's tax, summed over its conceptos per impuesto, tipo factor and tasa. */
export interface TicketTax {
  kind: 'traslado' | 'retencion';
  impuesto: string;
  tipo_factor: 'Tasa' | 'Cuota' | 'Exento';
  tasa_o_cuota?: string;
  base: string;
  importe?: string;
}

/** What a ticket amounts to, as an invoice of its conceptos computes it. */
export interface TicketAmounts {
  subtotal: string;
  descuento?: string;
  total: string;
  taxes: TicketTax[];
  /** The conceptos' ObjetoImp when they all share one (a ticket without taxes keeps it in the global concepto). */
  objetoImp?: string;
}

export interface Ticket extends TicketAmounts {
  folio: string;
  formaPago: string;
}

const toTaxes = (kind: TicketTax['kind'], lines: TaxLine[]): TicketTax[] =>
  sumByTax(lines).map((t) => ({
    kind,
    impuesto: t.impuesto,
    tipo_factor: t.tipoFactor as TicketTax['tipo_factor'],
    ...(t.tasaOCuota !== undefined ? { tasa_o_cuota: t.tasaOCuota } : {}),
    base: t.base.toString(),
    ...(t.importe ? { importe: t.importe.toString() } : {}),
  }));

/** A ticket's amounts from the model of an invoice of its conceptos (the same rules, the same rounding). */
export function ticketAmounts(model: ComprobanteModel): TicketAmounts {
  const objetos = new Set(model.conceptos.map((c) => c.objetoImp));
  return {
    subtotal: model.subTotal.toString(),
    ...(model.descuento && model.descuento.cmp(Dec.ZERO) > 0 ? { descuento: model.descuento.toString() } : {}),
    total: model.total.toString(),
    taxes: [
      ...toTaxes(
        'traslado',
        model.conceptos.flatMap((c) => c.traslados),
      ),
      ...toTaxes(
        'retencion',
        model.conceptos.flatMap((c) => c.retenciones),
      ),
    ],
    ...(objetos.size === 1 ? { objetoImp: [...objetos][0] } : {}),
  };
}

/**
 * A summed Importe stays as the ticket charged it unless it falls outside SAT's window for the summed Base × Tasa
 * (CFDI40180: each line was rounded alone); then the nearest value inside it, a difference of cents at most.
 */
function globalImporte(t: TicketTax): string | undefined {
  if (t.importe === undefined || t.tasa_o_cuota === undefined) return t.importe;
  const importe = Dec.parse(t.importe);
  const { low, high } = importeWindow(Dec.parse(t.base), Dec.parse(t.tasa_o_cuota), importe.decimals);
  if (importe.cmp(low) < 0) return low.toString();
  if (importe.cmp(high) > 0) return high.toString();
  return t.importe;
}

function globalConcepto(t: Ticket): ConceptoInput {
  const tax = (x: TicketTax): TaxInput => ({
    impuesto: x.impuesto,
    tipo_factor: x.tipo_factor,
    base: x.base,
    ...(x.tasa_o_cuota !== undefined ? { tasa_o_cuota: x.tasa_o_cuota } : {}),
    ...(x.tipo_factor !== 'Exento' ? { importe: globalImporte(x) } : {}),
  });
  const traslados = t.taxes.filter((x) => x.kind === 'traslado').map(tax);
  const retenciones = t.taxes.filter((x) => x.kind === 'retencion').map(tax);
  const taxed = traslados.length + retenciones.length > 0;
  return {
    clave_prod_serv: '01010101',
    no_identificacion: t.folio,
    cantidad: '1',
    clave_unidad: 'ACT',
    descripcion: 'Venta',
    valor_unitario: t.subtotal,
    ...(t.descuento ? { descuento: t.descuento } : {}),
    objeto_imp: taxed ? '02' : t.objetoImp && t.objetoImp !== '02' ? t.objetoImp : '01',
    ...(taxed ? { impuestos: { ...(traslados.length ? { traslados } : {}), ...(retenciones.length ? { retenciones } : {}) } } : {}),
  };
}

/** SAT's FormaPago for a document paid several ways: the one that paid the largest amount (the first on a tie). */
function largestFormaPago(tickets: Ticket[]): string {
  const byForma = new Map<string, Dec>();
  for (const t of tickets) byForma.set(t.formaPago, (byForma.get(t.formaPago) ?? Dec.ZERO).add(Dec.parse(t.total)));
  let best: [string, Dec] | undefined;
  for (const entry of byForma) if (!best || entry[1].cmp(best[1]) > 0) best = entry;
  return best![0];
}

/** The global invoice's request for these tickets over this period (the engine checks it like any other). */
export function globalInvoiceRequest(tickets: Ticket[], period: GlobalPeriod, codigoPostal: string): ComprobanteInput & { receptor: ReceptorInput } {
  return {
    tipo: 'I',
    forma_pago: largestFormaPago(tickets),
    metodo_pago: 'PUE',
    moneda: 'MXN',
    receptor: PUBLICO_EN_GENERAL(codigoPostal),
    informacion_global: { periodicidad: period.periodicidad, meses: period.meses, anio: period.anio },
    conceptos: tickets.map(globalConcepto),
  };
}

/** A period of sales: the days it covers (issuer's local dates, both included) and InformacionGlobal's values for it. */
export interface GlobalPeriod {
  periodicidad: Periodicidad;
  desde: string;
  hasta: string;
  meses: string;
  anio: string;
}

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const lastDayOfMonth = (year: number, month: number) => isoDay(Date.UTC(year, month, 0));
const pad = (n: number) => String(n).padStart(2, '0');
/** c_Meses for a bimonthly period: 13 enero-febrero … 18 noviembre-diciembre. */
const bimesterOf = (month: number) => 13 + Math.floor((month - 1) / 2);
/** Most days each periodicity covers: a day, a week, a fortnight (16 days: the 16th to the 31st). */
const MAX_DAYS: Partial<Record<Periodicidad, number>> = { '01': 1, '02': 7, '03': 16 };

const isDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && isoDay(dayMs(s)) === s;

/**
 * The period of POST /receipts/global-invoice: `desde`–`hasta` (within one month, or one bimester for 05, so that
 * Meses names it), or `meses` and `anio` for a monthly or bimonthly one. Problems name the request's fields.
 */
export function globalPeriod(
  req: { periodicidad: Periodicidad; desde?: string; hasta?: string; meses?: string; anio?: string },
  problems: FieldProblem[],
): GlobalPeriod | undefined {
  const p = req.periodicidad;
  const fail = (field: string, issue: string, rule?: string) => problems.push(rule ? { field, issue, rule } : { field, issue });
  if (req.meses !== undefined || req.anio !== undefined) {
    if (req.desde !== undefined || req.hasta !== undefined) fail('desde', 'send either desde and hasta, or meses and anio, not both');
    if (p !== '04' && p !== '05') fail('meses', `meses and anio name a month or a bimester: with periodicidad ${p} send desde and hasta`);
    if (req.meses === undefined || req.anio === undefined) fail(req.meses === undefined ? 'meses' : 'anio', 'is required with the other');
    if (problems.length) return undefined;
    const m = Number(req.meses);
    const year = Number(req.anio);
    if (!/^\d{4}$/.test(req.anio!)) fail('anio', 'must be a four-digit year', 'CFDI40136');
    if (p === '04' && !(/^\d{2}$/.test(req.meses!) && m >= 1 && m <= 12)) fail('meses', 'must be 01–12 for a monthly period', 'CFDI40134');
    if (p === '05' && !(/^\d{2}$/.test(req.meses!) && m >= 13 && m <= 18)) fail('meses', 'must be 13–18 for a bimonthly period', 'CFDI40135');
    if (problems.length) return undefined;
    const first = p === '04' ? m : (m - 13) * 2 + 1;
    const last = p === '04' ? m : first + 1;
    return { periodicidad: p, desde: `${req.anio}-${pad(first)}-01`, hasta: lastDayOfMonth(year, last), meses: req.meses!, anio: req.anio! };
  }
  if (req.desde === undefined || req.hasta === undefined) {
    fail(req.desde === undefined ? 'desde' : 'hasta', 'is required (or send meses and anio for a monthly or bimonthly period)');
    return undefined;
  }
  if (!isDay(req.desde)) fail('desde', 'must be a date, YYYY-MM-DD');
  if (!isDay(req.hasta)) fail('hasta', 'must be a date, YYYY-MM-DD');
  if (problems.length) return undefined;
  const { desde, hasta } = req;
  if (hasta < desde) {
    fail('hasta', 'must not be before desde');
    return undefined;
  }
  const [y1, m1] = [Number(desde.slice(0, 4)), Number(desde.slice(5, 7))];
  const [y2, m2] = [Number(hasta.slice(0, 4)), Number(hasta.slice(5, 7))];
  const sameMonth = y1 === y2 && m1 === m2;
  const sameBimester = y1 === y2 && bimesterOf(m1) === bimesterOf(m2);
  const days = (dayMs(hasta) - dayMs(desde)) / DAY_MS + 1;
  if (p === '05' ? !sameBimester : !sameMonth)
    fail('hasta', p === '05' ? 'must be in the same bimester as desde (Meses names one)' : 'must be in the same month as desde (Meses names one month)');
  else if ((MAX_DAYS[p] ?? 31 * 2) < days) fail('hasta', `a ${PERIOD_NAME[p]} period covers at most ${MAX_DAYS[p]} day(s)`);
  if (problems.length) return undefined;
  return { periodicidad: p, desde, hasta, meses: p === '05' ? String(bimesterOf(m2)) : pad(m2), anio: String(y2) };
}

const PERIOD_NAME: Record<Periodicidad, string> = { '01': 'daily', '02': 'weekly', '03': 'fortnightly', '04': 'monthly', '05': 'bimonthly' };

/**
 * The periods of `periodicidad` that ended after `through` (exclusive; none: only the last one) and before `today`,
 * oldest first: what an automatic global invoice still has to cover. Weeks run Monday to Sunday and are cut at the end
 * of a month, fortnights are the 1st–15th and the 16th–end, so every period lies in one month (or one bimester).
 */
export function endedPeriods(periodicidad: Periodicidad, today: string, through: string | undefined, limit = 62): GlobalPeriod[] {
  const out: GlobalPeriod[] = [];
  let end = isoDay(dayMs(today) - DAY_MS);
  while (out.length < limit) {
    const period = periodEndingOnOrBefore(periodicidad, end);
    if (through !== undefined ? period.hasta <= through : out.length === 1) break;
    out.push(period);
    end = isoDay(dayMs(period.desde) - DAY_MS);
  }
  return out.reverse();
}

/** The last complete period of this periodicity that ends on or before `day`. */
function periodEndingOnOrBefore(p: Periodicidad, day: string): GlobalPeriod {
  const year = Number(day.slice(0, 4));
  const month = Number(day.slice(5, 7));
  const dom = Number(day.slice(8, 10));
  const monthEnd = lastDayOfMonth(year, month);
  const make = (desde: string, hasta: string): GlobalPeriod => {
    const m = Number(hasta.slice(5, 7));
    return { periodicidad: p, desde, hasta, meses: p === '05' ? String(bimesterOf(m)) : pad(m), anio: hasta.slice(0, 4) };
  };
  const monthStart = `${day.slice(0, 7)}-01`;
  switch (p) {
    case '01':
      return make(day, day);
    case '02': {
      // Sunday ends a week, and so does a month's last day.
      const weekday = new Date(dayMs(day)).getUTCDay(); // 0 Sunday
      if (weekday === 0 || day === monthEnd) {
        const monday = isoDay(dayMs(day) - ((weekday + 6) % 7) * DAY_MS);
        return make(monday < monthStart ? monthStart : monday, day);
      }
      const previousSunday = isoDay(dayMs(day) - weekday * DAY_MS);
      const previousEnd = previousSunday < monthStart ? isoDay(dayMs(monthStart) - DAY_MS) : previousSunday;
      return periodEndingOnOrBefore(p, previousEnd);
    }
    case '03':
      if (day === monthEnd) return make(`${day.slice(0, 7)}-16`, day);
      if (dom >= 15) return make(monthStart, `${day.slice(0, 7)}-15`);
      return periodEndingOnOrBefore(p, isoDay(dayMs(monthStart) - DAY_MS));
    case '04':
      if (day === monthEnd) return make(monthStart, day);
      return periodEndingOnOrBefore(p, isoDay(dayMs(monthStart) - DAY_MS));
    case '05': {
      const lastOfBimester = month % 2 === 0;
      if (lastOfBimester && day === monthEnd) return make(`${year}-${pad(month - 1)}-01`, day);
      const before = lastOfBimester ? isoDay(dayMs(`${year}-${pad(month - 1)}-01`) - DAY_MS) : isoDay(dayMs(monthStart) - DAY_MS);
      return periodEndingOnOrBefore(p, before);
    }
  }
}
