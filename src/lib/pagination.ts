import { invalidInput } from './service-error.ts';

/** Opaque keyset cursor: the last id of the previous page. Its format may change; clients must not parse it. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ after: lastId })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string' && parsed.after.length <= 64) return parsed.after;
  } catch {
    // fall through
  }
  throw invalidInput('Invalid cursor', [{ field: 'cursor', issue: 'is not a cursor returned by this API' }]);
}

/** Rows were fetched with `limit + 1` to learn whether another page exists. */
export function page<T extends { id: string }, R>(rows: T[], limit: number, toWire: (row: T) => R) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    data: items.map(toWire),
    pagination: hasMore && last ? { has_more: true, next_cursor: encodeCursor(last.id), limit } : { has_more: false, limit },
  };
}
