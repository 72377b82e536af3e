import { type CatalogName, type CatalogRow, catalogEntry, inForce } from '../../catalogs/index.ts';
import type { Fail } from '../input.ts';

/** The checks a complement's rules share, lent to each of its sections: its fields' paths under its request member. */
export interface CatalogChecks {
  day: string;
  fail: Fail;
  /** The row when `key` is in force in the catalog on the comprobante's day, else undefined. */
  row(name: CatalogName, key: string): CatalogRow | undefined;
  /** Reports `key` at `path` unless it is in force in the catalog; the row when it is. */
  catalog(path: string, name: CatalogName, key: string, rule?: string): CatalogRow | undefined;
  /** Reports a field the request must not send in this case. */
  forbid(path: string, value: unknown, why: string, rule?: string): void;
  /** Reports a field the request must send in this case. */
  need(path: string, value: unknown, why: string, rule?: string): void;
}

/** `at` turns a path inside the complement into the request's field path (`carta_porte.…`, `comercio_exterior.…`). */
export function catalogChecks(day: string, fail: Fail, at: (path: string) => string): CatalogChecks {
  const row = (name: CatalogName, key: string) => {
    const r = catalogEntry(name, key);
    return r && inForce(r, day) ? r : undefined;
  };
  return {
    day,
    fail,
    row,
    catalog(path, name, key, rule) {
      const r = row(name, key);
      if (!r) fail(at(path), `${key} is not a ${name} key in force on ${day}`, rule);
      return r;
    },
    forbid(path, value, why, rule) {
      if (value !== undefined) fail(at(path), `must not be sent: ${why}`, rule);
    },
    need(path, value, why, rule) {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) fail(at(path), `is required: ${why}`, rule);
    },
  };
}
