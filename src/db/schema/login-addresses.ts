import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The client addresses (IPv4, or an IPv6 /64) that signed in to an email, its newest few: each keeps a login budget
 * of its own, while every other address spends the email's shared one (src/auth/session/login-throttle.ts).
 */
export const loginAddresses = sqliteTable(
  'login_addresses',
  {
    /** sha256(email) + '|' + client address */
    key: text('key').primaryKey(),
    /** sha256(email): whether or not a user has it, as login_failures keys it */
    account: text('account').notNull(),
    signedInAt: text('signed_in_at').notNull(),
  },
  (t) => [index('login_addresses_account_idx').on(t.account, t.signedInAt), index('login_addresses_signed_in_idx').on(t.signedInAt)],
);
