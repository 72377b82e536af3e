import { sql } from 'drizzle-orm';
import { text } from 'drizzle-orm/sqlite-core';

/** The credential's mode: every tenant-owned row belongs to one, and test rows never mix with live ones. */
export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** ISO 8601 UTC with milliseconds, as the API writes its timestamps. */
export const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

export const timestamps = {
  createdAt: text('created_at').notNull().default(now),
  updatedAt: text('updated_at').notNull().default(now),
};
