import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tenants } from './tenants.ts';

/**
 * What a tenant has emailed today: one row per tenant, its count started again on the first sending of a new UTC
 * day. Charged by a conditional upsert in the transaction that records the sending, so concurrent requests never
 * pass the budget together (docs/decisions.md, "Email budgets").
 */
export const emailBudgets = sqliteTable('email_budgets', {
  tenantId: text('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  /** The UTC day counted, YYYY-MM-DD. */
  day: text('day').notNull(),
  /** Recipients of the messages recorded that day (a message to three addresses counts three). */
  recipients: integer('recipients').notNull(),
});
