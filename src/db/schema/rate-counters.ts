import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Requests counted in the current fixed window of each rate budget, shared by every instance on PostgreSQL (SQLite
 * mode counts in memory: one process). One row per budget, reset when its window has passed; rows of windows that
 * ended are purged. Service-wide: budgets are named by credential, tenant or client address.
 */
export const rateCounters = sqliteTable('rate_counters', {
  /** limiter scope + ':' + budget (`gateway:api_key:ak_…`, `registrations:address:…`) */
  key: text('key').primaryKey(),
  /** When the counted window ends, in milliseconds since the epoch (of the database's clock). */
  windowEnd: integer('window_end').notNull(),
  hits: integer('hits').notNull(),
});
