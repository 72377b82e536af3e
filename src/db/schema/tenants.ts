import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { PLANS } from '../../lib/plans.ts';
import { timestamps } from './columns.ts';

/** The issuer. Its own id is the tenant id; it owns every other row. */
export const tenants = sqliteTable('tenants', {
  id: text('id').primaryKey(),
  rfc: text('rfc').notNull(),
  nombre: text('nombre').notNull(),
  regimenFiscal: text('regimen_fiscal').notNull(),
  codigoPostal: text('codigo_postal').notNull(),
  plan: text('plan', { enum: PLANS }).notNull().default('starter'),
  /** Per-minute request limit; only read for the enterprise plan. */
  rateLimitPerMinute: integer('rate_limit_per_minute'),
  /** Reply-To of the CFDI emails: the issuer's own address, so customers' replies reach it, not SMTP_FROM's. */
  replyTo: text('reply_to'),
  ...timestamps,
});
