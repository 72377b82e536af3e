import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/** Business events (the outbox): written in the same transaction as the change; webhooks deliver them. */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    type: text('type').notNull(),
    data: text('data', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [index('events_tenant_idx').on(t.tenantId, t.environment, t.id)],
);
