import { blob, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

export const WEBHOOK_ESTADOS = ['ACTIVO', 'PAUSADO', 'DESACTIVADO'] as const;
export type WebhookEstado = (typeof WEBHOOK_ESTADOS)[number];

/** Subscriptions. The signing secret is stored sealed under the master key (it must be recoverable to sign). */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    url: text('url').notNull(),
    events: text('events', { mode: 'json' }).notNull().$type<string[]>(),
    secretSealed: blob('secret_sealed', { mode: 'buffer' }).notNull(),
    /** After a rotation: the secret before it, sealed as the current one, still signing deliveries until previous_expires_at. */
    previousSecretSealed: blob('previous_secret_sealed', { mode: 'buffer' }),
    previousExpiresAt: text('previous_expires_at'),
    estado: text('estado', { enum: WEBHOOK_ESTADOS }).notNull().default('ACTIVO'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [index('webhooks_tenant_idx').on(t.tenantId, t.environment, t.estado)],
);
