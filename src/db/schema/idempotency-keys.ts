import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/** Idempotency-Key records: claimed before the request runs, then the first response is replayed for 24 h. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    /** The credential that sent the key and its role (`user:usr_…:ADMIN`): only it gets the stored answer back. */
    actor: text('actor').notNull().default(''),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    requestHash: text('request_hash').notNull(),
    /** 0 while the first request runs (or if its process died); then the status it was answered with. */
    status: integer('status').notNull(),
    /**
     * The instance running the first request (its per-process id) and until when its claim holds (ISO time, the app's
     * clock): renewed while it runs, cleared once answered. Another instance takes over a claim whose lease ran out.
     */
    owner: text('owner'),
    leaseUntil: text('lease_until'),
    /** What the first request created, bound in the same transaction as the creation: a retry after a crash answers from it. */
    resourceId: text('resource_id'),
    headers: text('headers', { mode: 'json' }).notNull().$type<Record<string, string>>(),
    /** Sealed with the master key (it may hold a secret shown once: an API key, a webhook secret). */
    body: blob('body', { mode: 'buffer' }).notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [uniqueIndex('idempotency_actor_unique').on(t.tenantId, t.environment, t.actor, t.key), index('idempotency_created_idx').on(t.createdAt)],
);
