import { type CatalogName, type CatalogRow, catalogEntry, inForce } from '../../../../catalogs/index.ts';
import type { Fail } from '../../../input.ts';

/** Field path as the request spells it, under the complement's key. */
export const at = (path: string) => `comercio_exterior.${path}`;

export interface Checks {
  day: string;
  fail: Fail;
  /** The row when `key` is in force in the catalog on the comprobante's day, else undefined. */
  row(name: CatalogName, key: string): CatalogRow | undefined;
  /** Reports `key` at `path` (under comercio_exterior) unless it is in force in the catalog; the row when it is. */
  catalog(path: string, name: CatalogName, key: string, rule?: string): CatalogRow | undefined;
}

export function checks(day: string, fail: Fail): Checks {
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
  };
}
