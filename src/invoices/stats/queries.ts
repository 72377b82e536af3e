import { sql } from 'drizzle-orm';
import { executeSql, forDialect, type DbOrTx } from '../../db/index.ts';
import { cfdiStats, cfdiStatsDeltas } from '../../db/schema/index.ts';

/** The statistics' statements whose syntax is the engine's own. */
export interface StatsQueries {
  /** Whether the cfdis triggers append cfdi_stats_deltas (PostgreSQL) rather than update cfdi_stats in place (SQLite). */
  readonly writesDeltas: boolean;
  /** Folds the `limit` oldest deltas into `cfdi_stats` and deletes them, in one statement; how many it folded. */
  foldDeltas(db: DbOrTx, limit: number): Promise<number>;
}

// SQLite's triggers write cfdi_stats directly (one writer: no row to contend for); its deltas table stays empty.
const sqlite: StatsQueries = {
  writesDeltas: false,
  foldDeltas: async () => 0,
};

const KEY = sql`tenant_id, environment, mes, tipo, status, moneda`;

/**
 * One statement, so one transaction: the deltas it deletes are exactly those whose sums it adds, and a delta is added
 * only by the statement that deleted it. Two folds at once both pick the oldest rows; the second waits on the
 * first's row locks, then finds those rows deleted and skips them (READ COMMITTED re-checks a locked row), so no
 * delta is added twice or lost. The keys are upserted in their order, so two folds lock cfdi_stats rows in the same
 * order. Deltas of transactions not committed yet are not seen: the next fold takes them.
 */
const postgres: StatsQueries = {
  writesDeltas: true,
  foldDeltas: async (db, limit) => {
    const [row] = await executeSql(
      db,
      sql`with moved as (
            delete from ${cfdiStatsDeltas}
            where id in (select id from ${cfdiStatsDeltas} order by id limit ${limit})
            returning ${KEY}, cantidad, total_micros
          ), folded as (
            insert into ${cfdiStats} (${KEY}, cantidad, total_micros)
            select ${KEY}, sum(cantidad), sum(total_micros) from moved group by ${KEY} order by ${KEY}
            on conflict (${KEY}) do update
              set cantidad = ${cfdiStats}.cantidad + excluded.cantidad, total_micros = ${cfdiStats}.total_micros + excluded.total_micros
          )
          select count(*)::int as deltas from moved`,
    );
    return Number(row?.deltas ?? 0);
  },
};

export const statsQueries = (db: DbOrTx): StatsQueries => forDialect(db, { sqlite, postgres });
