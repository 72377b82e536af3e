import { zonedToUtc } from '../cfdi/time.ts';
import type { RetencionQuery, RetencionSatStatus, RetencionStatusResult } from './types.ts';

const SAT_RETENCIONES_CONSULTA_URL = 'https://prodretencionverificacion.clouda.sat.gob.mx/Home/ConsultaRetencion';

/** The page's labels, as SAT writes them (entities decoded). */
const FOLIO_FISCAL = 'Folio Fiscal';
const ESTADO = 'Estado CFDI Retención';
/** The cell that holds a cancelled retención's date (no label of its own is known). */
const FECHA_CANCELACION_ID = 'tdFechaCancelacion';
/** The page's dates: a wall clock without a zone, SAT's own (Mexico City), as its Fecha Certificación SAT. */
const PAGE_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** The character references SAT's Spanish text uses; an unknown one is left as written, so its label matches nothing. */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  aacute: 'á',
  eacute: 'é',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  uuml: 'ü',
  ntilde: 'ñ',
  Aacute: 'Á',
  Eacute: 'É',
  Iacute: 'Í',
  Oacute: 'Ó',
  Uacute: 'Ú',
  Uuml: 'Ü',
  Ntilde: 'Ñ',
};

function decodeReference(ref: string, name: string): string {
  if (name[0] !== '#') return NAMED[name] ?? ref;
  const hex = name[1] === 'x' || name[1] === 'X';
  const code = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ref;
}

/** HTMLRewriter hands a text as the page wrote it, references included: decoded here, whitespace collapsed. */
const textOf = (raw: string) =>
  raw
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, decodeReference)
    .replace(/\s+/g, ' ')
    .trim();

interface Cell {
  heading: boolean;
  id: string | null;
  text: string;
}

/** The result table's cells in document order, and whether the page is SAT's "not registered" notice. */
function readPage(html: string): { cells: Cell[]; notFound: boolean } {
  const cells: Cell[] = [];
  let notFound = false;
  new HTMLRewriter()
    .on('#tbl_resultado th, #tbl_resultado td', {
      element: (e) => {
        cells.push({ heading: e.tagName === 'th', id: e.getAttribute('id'), text: '' });
      },
      text: (t) => {
        cells[cells.length - 1]!.text += t.text;
      },
    })
    .on('.noresultados', {
      element: () => {
        notFound = true;
      },
    })
    .transform(html);
  return { cells: cells.map((c) => ({ ...c, text: textOf(c.text) })), notFound };
}

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/**
 * What the page says about `uuid`, or why it is not a page we know: the table pairs each heading with the value in the
 * same position (rows of headings alternate with rows of values), and must be about this very UUID.
 */
function statusOf(html: string, uuid: string): RetencionSatStatus | string {
  const { cells, notFound } = readPage(html);
  if (notFound && cells.length === 0) return { estado: 'No Encontrado', estatusCancelacion: null, fechaCancelacion: null };
  if (notFound) return 'the page shows both a result and the "not registered" notice';
  if (cells.length === 0) return 'the page has neither the result table (tbl_resultado) nor the "not registered" notice (noresultados)';
  const headings = cells.filter((c) => c.heading);
  const values = cells.filter((c) => !c.heading);
  if (headings.length !== values.length) return `the result table has ${headings.length} headings for ${values.length} values`;
  const valueUnder = (label: string) => values[headings.findIndex((h) => h.text === label)]?.text;
  const folio = valueUnder(FOLIO_FISCAL);
  if (folio === undefined) return `the result table has no "${FOLIO_FISCAL}"`;
  if (folio.toUpperCase() !== uuid.toUpperCase()) return `the page is about folio ${quoted(folio)}, not ${uuid}`;
  const estado = valueUnder(ESTADO);
  if (estado === 'Vigente') return { estado, estatusCancelacion: null, fechaCancelacion: null };
  if (estado !== 'Cancelado')
    return estado === undefined ? `the result table has no "${ESTADO}"` : `"${ESTADO}" is ${quoted(estado)}, not Vigente or Cancelado`;
  const fecha = values.find((c) => c.id === FECHA_CANCELACION_ID)?.text;
  if (fecha === undefined || !PAGE_DATE.test(fecha))
    return `a Cancelado without a readable date in ${FECHA_CANCELACION_ID} (${fecha === undefined ? 'absent' : quoted(fecha)})`;
  // SAT's page does not say whether a cancellation needed the receptor's acceptance (a retención's never does).
  return { estado, estatusCancelacion: null, fechaCancelacion: zonedToUtc(fecha.slice(0, 19), 'America/Mexico_City').toISOString() };
}

/**
 * SAT's verification page for a CFDI de Retenciones (docs/decisions.md, "A retención's SAT status in live mode"): SAT
 * offers no service for them, only this HTML page, asked with GET folio, rfcEmisor and rfcReceptor (empty for a
 * receptor Extranjero). Network errors, timeouts, non-200 and a page we do not recognise are retryable: the caller
 * asks again later, and nothing is guessed from a page we cannot read.
 */
export async function consultSatRetencion(query: RetencionQuery, o: { url?: string; timeoutMs?: number } = {}): Promise<RetencionStatusResult> {
  const url = new URL(o.url ?? SAT_RETENCIONES_CONSULTA_URL);
  url.searchParams.set('folio', query.uuid);
  url.searchParams.set('rfcEmisor', query.rfcEmisor);
  url.searchParams.set('rfcReceptor', query.rfcReceptor ?? '');
  let html: string;
  try {
    const res = await fetch(url, { headers: { Accept: 'text/html' }, signal: AbortSignal.timeout(o.timeoutMs ?? 10_000) });
    html = await res.text();
    if (res.status !== 200) return { ok: false, retryable: true, message: `SAT's Retenciones verification page answered HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, retryable: true, message: `SAT's Retenciones verification page unreachable: ${err instanceof Error ? err.message : String(err)}` };
  }
  const status = statusOf(html, query.uuid);
  if (typeof status === 'string') return { ok: false, retryable: true, message: `SAT's Retenciones verification page not recognised: ${status}` };
  return { ok: true, status };
}
