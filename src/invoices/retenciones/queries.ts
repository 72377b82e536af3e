import { type SQL, sql } from 'drizzle-orm';
import { forDialect, type DbOrTx } from '../../db/index.ts';

/** The retenciones' statements whose syntax is the engine's own. */
interface RetencionQueries {
  /** Σ of an amount column (exact decimal text) in millionths, as text: exact on both engines. */
  sumMicros(column: SQL): SQL<string>;
}

const queries: { readonly sqlite: RetencionQueries; readonly postgres: RetencionQueries } = {
  // A REAL holds an amount of up to 9 integer digits and 6 decimals exactly enough that rounding its millionths gives the integer back.
  sqlite: { sumMicros: (column) => sql<string>`cast(sum(cast(round(cast(${column} as real) * 1000000) as integer)) as text)` },
  postgres: { sumMicros: (column) => sql<string>`cast(sum(cast(${column} as numeric) * 1000000) as bigint)::text` },
};

export const retencionQueries = (db: DbOrTx): RetencionQueries => forDialect(db, queries);
