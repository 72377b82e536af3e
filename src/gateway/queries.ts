import { sql, type SQL } from 'drizzle-orm';
import { executeSql, type DbOrTx } from '../db/index.ts';

/**
 * The rate counters' PostgreSQL statements (SQLite counts in memory, see rate-limit.ts). The instant a window is
 * computed from: the one given (a test's clock), else the database's own, the one clock every instance shares.
 */
const instant = (atMs: number | null): SQL => (atMs === null ? sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint` : sql`${atMs}::bigint`);

/** A budget's count in its window after the hits, how many of them it counted, and when that window ends (ms since the epoch). */
interface Counted {
  hits: number;
  added: number;
  windowEnd: number;
}

/**
 * One statement for all the budgets of `count` requests of one caller: each budget is an upsert that adds to its
 * row (or starts it again when its window has passed) as many of them as the budget before it allowed, nothing when
 * none. A row already in a later window keeps it (a statement whose clock read came a moment earlier counts there).
 * `added` says how many each budget counted: the count of the first, then how many of those the one before allowed.
 */
export async function countHits(
  db: DbOrTx,
  windowMs: number,
  atMs: number | null,
  budgets: readonly { key: string; limit: number }[],
  count = 1,
): Promise<{ nowMs: number; counted: Counted[] }> {
  const step = (i: number) => sql.raw(`counted_${i}`);
  const added: SQL[] = [];
  budgets.forEach((_, i) => {
    const previous = budgets[i - 1];
    added.push(
      previous
        ? sql`least(${added[i - 1]!}, greatest(0, ${previous.limit}::bigint - ((select hits from ${step(i - 1)}) - ${added[i - 1]!})))`
        : sql`${count}::bigint`,
    );
  });
  const steps = budgets.map(
    (budget, i) => sql`${step(i)} as (
      insert into rate_counters (key, window_end, hits)
      select ${budget.key}::text, window_end, added from (select window_end, ${added[i]!} as added from clock) as s where added > 0
      on conflict (key) do update set
        hits = case when rate_counters.window_end >= excluded.window_end then rate_counters.hits + excluded.hits else excluded.hits end,
        window_end = greatest(rate_counters.window_end, excluded.window_end)
      returning hits, window_end)`,
  );
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
  let allowed = count;
  for (let i = 0; i < budgets.length; i++) {
    const hits = row?.[`hits_${i}`];
    if (hits === null || hits === undefined) break;
    const entry = { hits: Number(hits), added: allowed, windowEnd: Number(row![`end_${i}`]) };
    counted.push(entry);
    allowed = Math.min(allowed, Math.max(0, budgets[i]!.limit - (entry.hits - allowed)));
  }
  return { nowMs: Number(row?.now_ms), counted };
}

/** Drops the counters whose window has ended (budgets nobody spent since). */
export async function purgeEndedWindows(db: DbOrTx, atMs: number | null): Promise<void> {
  await executeSql(db, sql`delete from rate_counters where window_end <= ${instant(atMs)}`);
}
