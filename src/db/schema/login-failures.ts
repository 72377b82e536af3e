import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Failed logins per (email, client address), counted before the password is verified. Keyed by the email's SHA-256,
 * whether or not a user has it, so a refusal never tells an unknown email from a known one.
 */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    /** sha256(email) + '|' + client address */
    key: text('key').primaryKey(),
    failures: integer('failures').notNull(),
    /** Set from the limit on, doubling with each further failure: this address waits; others do not. */
    blockedUntil: text('blocked_until'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('login_failures_updated_idx').on(t.updatedAt)],
);
