import { blob, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The sandbox's simulated SAT cancellation state per UUID: which scenario the request chose, when it arrived and
 * its acuse. Kept in the database so a restart does not change what the sandbox answers.
 */
export const sandboxCancellations = sqliteTable('sandbox_cancellations', {
  uuid: text('uuid').primaryKey(),
  /** The tenant whose CFDI it is (the simulated SAT serves every test tenant). */
  tenantId: text('tenant_id').notNull(),
  scenario: text('scenario').notNull(),
  requiresAcceptance: integer('requires_acceptance', { mode: 'boolean' }).notNull(),
  requestedAt: text('requested_at').notNull(),
  acuseXml: blob('acuse_xml', { mode: 'buffer' }).notNull(),
});
