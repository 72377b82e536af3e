import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Durable work (stamping retries, webhook deliveries): written in the same transaction as the change that needs it,
 * claimed with a lease, retried with backoff, kept when it fails for good.
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    /** The tenant the work is for (null for service-wide jobs). */
    tenantId: text('tenant_id'),
    environment: text('environment', { enum: ENVIRONMENTS }),
    type: text('type').notNull(),
    /** Jobs sharing a lane (one webhook endpoint) are limited in how many run at once, so one slow lane cannot hold every slot. */
    lane: text('lane'),
    payload: text('payload', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(20),
    runAt: text('run_at').notNull(),
    /** No attempt starts after this instant; the job fails instead. */
    deadline: text('deadline'),
    lockedBy: text('locked_by'),
    lockedUntil: text('locked_until'),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    finishedAt: text('finished_at'),
  },
  (t) => [
    index('jobs_due_idx').on(t.status, t.type, t.runAt),
    index('jobs_lease_idx').on(t.status, t.lockedUntil),
    index('jobs_tenant_idx').on(t.tenantId, t.type),
    index('jobs_lane_idx').on(t.status, t.type, t.lane, t.runAt),
  ],
);
