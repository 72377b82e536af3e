import { T_RFC } from '../../cfdi/patterns.ts';
import type { ErrorDetail } from '../../lib/service-error.ts';
import { invalidInput } from '../../lib/service-error.ts';

/** What POST /sat-downloads asks for (the wire body, validated for shape by its zod schema). */
export interface SatDownloadInput {
  direction: 'received' | 'issued';
  kind: 'xml' | 'metadata';
  desde: string;
  hasta: string;
  tipo?: string;
  rfc?: string;
}

/** The request as SAT receives it: dates in SAT's `YYYY-MM-DDTHH:mm:ss`, filters upper-cased. */
export interface SatDownloadQuery extends SatDownloadInput {
  /** Always 'Vigente' for received XML (v1.5 refuses any other with 301), 'Todos' otherwise. */
  estadoComprobante: 'Vigente' | 'Todos';
}

/** c_TipoDeComprobante. */
const TIPOS_DE_COMPROBANTE = ['I', 'E', 'T', 'N', 'P'] as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** A date alone is the whole day: `desde` from 00:00:00, `hasta` to 23:59:59. */
function dateTime(value: string, end: boolean): string | undefined {
  const v = DATE.test(value) ? `${value}T${end ? '23:59:59' : '00:00:00'}` : value;
  if (!DATE_TIME.test(v)) return undefined;
  const ms = Date.parse(`${v}Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== v ? undefined : v;
}

/**
 * Descarga Masiva v1.5's rules, checked before anything is sent (each broken one would cost one of the period's two
 * requests or a 301 from SAT): `desde` strictly before `hasta`; `desde` not before six years ago at 00:00 (UTC, as the
 * day SAT counts); at most one counterparty RFC for received (SAT's `RfcEmisor`), an RFC in SAT's t_RFC shape; `tipo` in
 * c_TipoDeComprobante. A received XML request asks only vigentes (EstadoComprobante=Vigente: SAT refuses the
 * cancelled ones' XML since v1.5), which `estadoComprobante` fixes rather than the caller. Every problem at once.
 */
export function precheckSatDownload(input: SatDownloadInput, now: Date): SatDownloadQuery {
  const problems: ErrorDetail[] = [];
  const desde = dateTime(input.desde, false);
  const hasta = dateTime(input.hasta, true);
  if (!desde) problems.push({ field: 'desde', issue: 'must be a date (YYYY-MM-DD) or a date and time (YYYY-MM-DDTHH:mm:ss)' });
  if (!hasta) problems.push({ field: 'hasta', issue: 'must be a date (YYYY-MM-DD) or a date and time (YYYY-MM-DDTHH:mm:ss)' });
  if (desde && hasta && desde >= hasta)
    problems.push({ field: 'hasta', issue: `must be after desde (${desde}): Descarga Masiva v1.5 requires FechaInicial strictly before FechaFinal` });
  const floor = new Date(Date.UTC(now.getUTCFullYear() - 6, now.getUTCMonth(), now.getUTCDate())).toISOString().slice(0, 19);
  if (desde && desde < floor)
    problems.push({ field: 'desde', issue: `must not be before ${floor}: Descarga Masiva v1.5 serves at most six years back (from today at 00:00)` });
  const rfc = input.rfc?.trim().toUpperCase() || undefined;
  if (rfc !== undefined) {
    const several = rfc.split(/[\s,;|]+/).filter(Boolean);
    if (several.length > 1 && input.direction === 'received')
      problems.push({ field: 'rfc', issue: 'must be one RFC: Descarga Masiva v1.5 accepts at most one counterparty (RfcEmisor) for received CFDI' });
    else if (several.length > 1) problems.push({ field: 'rfc', issue: 'must be one RFC (the receptor to filter by)' });
    else if (!T_RFC.test(rfc)) problems.push({ field: 'rfc', issue: 'is not a valid RFC (12 characters persona moral, 13 persona física)' });
  }
  const tipo = input.tipo?.trim().toUpperCase() || undefined;
  if (tipo !== undefined && !(TIPOS_DE_COMPROBANTE as readonly string[]).includes(tipo))
    problems.push({ field: 'tipo', issue: `must be one of c_TipoDeComprobante: ${TIPOS_DE_COMPROBANTE.join(', ')}` });
  if (problems.length || !desde || !hasta) throw invalidInput('The request breaks a Descarga Masiva v1.5 rule', problems);
  return {
    direction: input.direction,
    kind: input.kind,
    desde,
    hasta,
    ...(tipo ? { tipo } : {}),
    ...(rfc ? { rfc } : {}),
    estadoComprobante: input.direction === 'received' && input.kind === 'xml' ? 'Vigente' : 'Todos',
  };
}

/** The period as SAT counts it for 5002: direction, kind, dates and every filter. */
export const periodKey = (q: SatDownloadQuery) => [q.direction, q.kind, q.desde, q.hasta, q.tipo ?? '', q.rfc ?? '', q.estadoComprobante].join('|');
