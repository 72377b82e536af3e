import { MIN_FREE_BYTES, storageRoom, type Db } from './client.ts';
import { forDialect } from './dialect.ts';
import { answersWithin, type Dialect, dialectOf } from './engine.ts';
import { writeSetting } from './settings.ts';

/** One entry of GET /health's checks. */
type Indicator = { status: string; [k: string]: unknown };

const MiB = 1024 * 1024;
/** How long PostgreSQL has to answer: an unreachable or hung server is reported down, never a /health that hangs. */
const POSTGRES_ANSWER_MS = 2000;

/**
 * GET /health's database check (src/gateway/health.ts), in each engine's own terms: whether this process can record
 * an invoice. SQLite: a committed update of one settings row (it fails on a read-only or failing disk) and room to
 * grow (a full disk lets that small update through but not a new invoice). PostgreSQL: the server answers a `select 1` within POSTGRES_ANSWER_MS (its disk is the server's to watch; every instance writing
 * one row each second would only make them contend).
 */
const probes: { [D in Dialect]: (db: Db, now: Date) => Promise<Indicator> } = {
  async sqlite(db, now) {
    await writeSetting(db, 'health_probe', Buffer.from(now.toISOString()), now);
    const room = storageRoom(db)!;
    if (room < MIN_FREE_BYTES)
      return { status: 'down', message: `storage is full: ${Math.floor(room / MiB)} MiB left, at least ${MIN_FREE_BYTES / MiB} MiB needed`, free_bytes: room };
    return { status: 'up', free_bytes: room };
  },
  async postgres(db) {
    await answersWithin(db, POSTGRES_ANSWER_MS);
    return { status: 'up' };
  },
};

export async function checkDatabase(db: Db, now: Date): Promise<Indicator> {
  const engine = dialectOf(db);
  const started = performance.now();
  try {
    const { status, ...rest } = await forDialect(db, probes)(db, now);
    return { status, engine, latency_ms: Math.round((performance.now() - started) * 10) / 10, ...rest };
  } catch (err) {
    return { status: 'down', engine, message: err instanceof Error ? err.message : String(err) };
  }
}
