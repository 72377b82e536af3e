import { sql } from 'drizzle-orm';
import { blob, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Service-wide values, e.g. the master-key check. Not tenant data. */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: blob('value', { mode: 'buffer' }).notNull(),
  updatedAt: integer('updated_at').notNull().default(sql`(unixepoch())`),
});
