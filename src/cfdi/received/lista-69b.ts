/**
 * SAT's Lista 69-B ("Listado completo de contribuyentes", artículo 69-B CFF), as SAT publishes it: a CSV in
 * windows-1250, some lines before the data (the list's date, a title, the column names), then one taxpayer a line,
 * RFC in column 2 and situación in column 4 (Presunto, Definitivo, Desvirtuado, Sentencia Favorable).
 * Pure: bytes in, entries and the lines it could not read out.
 */

export const SITUACIONES_69B = ['presunto', 'definitivo', 'desvirtuado', 'sentencia_favorable'] as const;
export type Situacion69b = (typeof SITUACIONES_69B)[number];

interface Lista69bEntry {
  rfc: string;
  situacion: Situacion69b;
}

export interface Lista69b {
  /** The date the list says it was updated (YYYY-MM-DD), when its first lines say one. */
  date?: string;
  entries: Lista69bEntry[];
  /** Data lines that are not a taxpayer (1-based line number and why); the rest of the file still counts. */
  problems: { line: number; issue: string }[];
}

const RFC = /^[A-ZÑ&]{3,4}\d{6}[A-Z\d]{3}$/;
const MONTHS = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

/** The file's text: UTF-8 when it is valid UTF-8 (an upload saved by a spreadsheet), else windows-1250 (SAT's). */
function decodeLista69b(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return new TextDecoder('windows-1250').decode(bytes);
  }
}

/** Splits a CSV text into records: commas, double quotes around a field ("" inside), CRLF or LF, quoted line breaks. */
function csvRecords(text: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      records.push({ line: start, fields });
      fields = [];
      field = '';
      line++;
      start = line;
    } else field += ch;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    records.push({ line: start, fields });
  }
  return records;
}

const normalize = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

function situacionOf(text: string): Situacion69b | undefined {
  const s = normalize(text).replace(/\s+/g, ' ');
  if (s === 'presunto') return 'presunto';
  if (s === 'definitivo') return 'definitivo';
  if (s === 'desvirtuado') return 'desvirtuado';
  if (s === 'sentencia favorable') return 'sentencia_favorable';
  return undefined;
}

/** "Información actualizada al 2025-09-30", "… al 30/09/2025" or "… al 30 de septiembre de 2025". */
function dateOf(line: string): string | undefined {
  const text = normalize(line);
  const iso = /(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const dmy = /(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(text);
  if (dmy) return `${dmy[3]}-${dmy[2]!.padStart(2, '0')}-${dmy[1]!.padStart(2, '0')}`;
  const words = /(\d{1,2}) de ([a-z]+) de(?:l)? (\d{4})/.exec(text);
  const month = words ? MONTHS.indexOf(words[2]!) : -1;
  if (words && month >= 0) return `${words[3]}-${String(month + 1).padStart(2, '0')}-${words[1]!.padStart(2, '0')}`;
  return undefined;
}

/**
 * Reads the list: the data start after the column names (the first record whose second field is "RFC"); a file
 * without them starts after SAT's three lines. An RFC listed twice keeps its last situación (SAT's list is one line
 * per taxpayer; a later line is the newer state).
 */
export function parseLista69b(input: Uint8Array | string): Lista69b {
  const text = typeof input === 'string' ? input.replace(/^\uFEFF/, '') : decodeLista69b(input);
  const records = csvRecords(text);
  const headerAt = records.findIndex((r, i) => i < 10 && normalize(r.fields[1] ?? '') === 'rfc');
  const dataFrom = headerAt >= 0 ? headerAt + 1 : Math.min(3, records.length);
  let date: string | undefined;
  for (const r of records.slice(0, dataFrom)) date ??= dateOf(r.fields.join(','));
  const byRfc = new Map<string, Situacion69b>();
  const problems: Lista69b['problems'] = [];
  for (const r of records.slice(dataFrom)) {
    if (r.fields.every((f) => f.trim() === '')) continue;
    const rfc = (r.fields[1] ?? '').trim().toUpperCase();
    const situacion = situacionOf(r.fields[3] ?? '');
    if (!RFC.test(rfc)) problems.push({ line: r.line, issue: `column 2 is not an RFC: ${JSON.stringify(rfc.slice(0, 20))}` });
    else if (!situacion) problems.push({ line: r.line, issue: `column 4 is not a situación of the list: ${JSON.stringify((r.fields[3] ?? '').slice(0, 40))}` });
    else {
      byRfc.delete(rfc);
      byRfc.set(rfc, situacion);
    }
  }
  return { ...(date ? { date } : {}), entries: [...byRfc].map(([rfc, situacion]) => ({ rfc, situacion })), problems };
}
