import { sql, type SQL } from 'drizzle-orm';
import { forDialect, type DbOrTx } from '../../db/index.ts';
import { series } from '../../db/schema/index.ts';

/** What the engine needs written its own way for the folio statements to use their index. */
export interface SeriesQueries {
  /** "Is the default series", as the partial unique index on the default states it. */
  isDefault(): SQL;
}

const sqlite: SeriesQueries = {
  // The literal 1, as in the index's WHERE: a bound parameter (true) would keep SQLite from using that index.
  isDefault: () => sql`${series.isDefault} = 1`,
};

// The same literal on PostgreSQL, whose column keeps SQLite's 0/1 (smallint).
export const seriesQueries = (db: DbOrTx): SeriesQueries => forDialect(db, { sqlite, postgres: sqlite });
