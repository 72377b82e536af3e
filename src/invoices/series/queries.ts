import { and, eq, sql, type SQL } from 'drizzle-orm';
import { executeSql, forDialect, type DbOrTx } from '../../db/index.ts';
import { series, type Environment } from '../../db/schema/index.ts';

/** What the engine needs written its own way for the folio statements to use their index. */
export interface SeriesQueries {
  /** "Is the default series", as the partial unique index on the default states it. */
  isDefault(): SQL;
  /**
   * The series' next folio, read for a group commit's guess (expectedFolio), its row locked until the transaction ends
   * where the engine locks rows (PostgreSQL: FOR UPDATE, after whoever holds it commits, so the guess is the folio the
   * group will get); SQLite's transaction already holds the only write lock. Undefined when no series matches.
   */
  nextFolioLocked(
    tx: DbOrTx,
    scope: { tenantId: string; environment: Environment },
    serie: string | undefined,
  ): Promise<{ serie: string; nextFolio: number } | undefined>;
}

// The literal 1, as in the index's WHERE: a bound parameter (true) would keep SQLite from using that index.
const isDefault = () => sql`${series.isDefault} = 1`;
const matching = (scope: { tenantId: string; environment: Environment }, serie: string | undefined) =>
  and(eq(series.tenantId, scope.tenantId), eq(series.environment, scope.environment), serie !== undefined ? eq(series.serie, serie) : isDefault());

const sqlite: SeriesQueries = {
  isDefault,
  nextFolioLocked: async (tx, scope, serie) =>
    (await tx.select({ serie: series.serie, nextFolio: series.nextFolio }).from(series).where(matching(scope, serie)).limit(1))[0],
};

// The same literal on PostgreSQL, whose column keeps SQLite's 0/1 (smallint).
const postgres: SeriesQueries = {
  isDefault,
  nextFolioLocked: async (tx, scope, serie) => {
    const [row] = await executeSql(
      tx,
      sql`select ${series.serie} as serie, ${series.nextFolio} as next from ${series} where ${matching(scope, serie)} limit 1 for update`,
    );
    return row ? { serie: String(row.serie), nextFolio: Number(row.next) } : undefined;
  },
};

export const seriesQueries = (db: DbOrTx): SeriesQueries => forDialect(db, { sqlite, postgres });
