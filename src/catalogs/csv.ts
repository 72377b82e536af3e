/**
 * RFC 4180 reader for the SAT catalog files we ship: header row, LF line ends, quoted fields. `eachRecord` calls
 * back with each record's cells and where its text starts and ends, so a large catalog can keep the text of a
 * record and parse it again when it is asked for, instead of holding millions of small strings.
 */
export function eachRecord(text: string, onRecord: (cells: string[], start: number, end: number) => void): void {
  let row: string[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    let field: string;
    if (text[i] === '"') {
      // Quoted: up to the closing quote, "" standing for one quote.
      field = '';
      let from = ++i;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) {
          field += text.slice(from);
          i = n;
          break;
        }
        if (text[q + 1] === '"') {
          field += text.slice(from, q + 1);
          i = from = q + 2;
          continue;
        }
        field += text.slice(from, q);
        i = q + 1;
        break;
      }
      while (i < n && text[i] !== ',' && text[i] !== '\n') i++; // anything after the closing quote is ignored
    } else {
      const from = i;
      while (i < n && text[i] !== ',' && text[i] !== '\n') i++;
      field = text.slice(from, text[i - 1] === '\r' && i > from ? i - 1 : i);
    }
    row.push(field);
    if (i >= n || text[i] === '\n') {
      const end = i > start && text[i - 1] === '\r' ? i - 1 : i;
      onRecord(row, start, end);
      row = [];
      start = i + 1;
    }
    i++; // past the comma or the line end
    if (i === n && text[n - 1] === ',') {
      row.push('');
      onRecord(row, start, n);
    }
  }
}

/** Cells of one record's text (as cut out by `eachRecord`). */
export function recordCells(text: string): string[] {
  let cells: string[] = [];
  eachRecord(text, (c) => (cells = c));
  return cells;
}

export const toRow = (header: string[], cells: string[]): Record<string, string> => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));

export function parseCsv(text: string): Record<string, string>[] {
  let header: string[] | undefined;
  const rows: Record<string, string>[] = [];
  eachRecord(text, (cells) => {
    if (!header) header = cells;
    else rows.push(toRow(header, cells));
  });
  return rows;
}
