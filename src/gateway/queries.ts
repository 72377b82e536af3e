import { sql, type SQL } from 'drizzle-orm';
import { executeSql, type DbOrTx } from '../db/index.ts';

/**
 * The rate counters' PostgreSQL statements (SQLite counts in memory, see rate-limit.ts). The instant a window is
 * computed from: the one given (a test's clock), else the database's own, the one clock every instance shares.
 */
const instant = (atMs: number | null): SQL => (atMs === null ? sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint` : sql`${atMs}::bigint`);

/** A budget's count in its window after the hit, and when that window ends (ms since the epoch). */
interface Counted {
  hits: number;
  windowEnd: number;
}

/**
 * One statement for all the budgets of a request: each is an upsert that adds one to its row, or starts the row
 * again at one when its window has passed, and counts only when the budget before it allowed the request. A row
 * already in a later window keeps it (a statement whose clock read came a moment earlier counts there).
 */
export async function countHits(
  db: DbOrTx,
  windowMs: number,
  atMs: number | null,
  budgets: readonly { key: string; limit: number }[],
): Promise<{ nowMs: number; counted: Counted[] }> {
  const step = (i: number) => sql.raw(`counted_${i}`);
  const steps = budgets.map((budget, i) => {
    const previous = budgets[i - 1];
    const gate = previous ? sql` where (select hits from ${step(i - 1)}) <= ${previous.limit}::bigint` : sql``;
    return sql`${step(i)} as (
      insert into rate_counters (key, window_end, hits) select ${budget.key}::text, window_end, 1 from clock${gate}
      on conflict (key) do update set
        hits = case when rate_counters.window_end >= excluded.window_end then rate_counters.hits + 1 else 1 end,
        window_end = greatest(rate_counters.window_end, excluded.window_end)
      returning hits, window_end)`;
  });
  const columns = budgets.map(
    (_, i) => sql`(select hits from ${step(i)}) as ${sql.raw(`hits_${i}`)}, (select window_end from ${step(i)}) as ${sql.raw(`end_${i}`)}`,
  );
  const [row] = await executeSql(
    db,
    sql`with clock as (
        select now_ms, now_ms - mod(now_ms, ${windowMs}::bigint) + ${windowMs}::bigint as window_end from (select ${instant(atMs)} as now_ms) as t
      ), ${sql.join(steps, sql`, `)}
      select now_ms, ${sql.join(columns, sql`, `)} from clock`,
  );
  const counted: Counted[] = [];
  for (let i = 0; i < budgets.length; i++) {
    const hits = row?.[`hits_${i}`];
    if (hits === null || hits === undefined) break;
    counted.push({ hits: Number(hits), windowEnd: Number(row![`end_${i}`]) });
  }
  return { nowMs: Number(row?.now_ms), counted };
}

/** Drops the counters whose window has ended (budgets nobody spent since). */
export async function purgeEndedWindows(db: DbOrTx, atMs: number | null): Promise<void> {
  await executeSql(db, sql`delete from rate_counters where window_end <= ${instant(atMs)}`);
}
