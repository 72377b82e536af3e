import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { PLANS } from '../../lib/plans.ts';
import { timestamps } from './columns.ts';

/**
 * The issuer's fiscal address as its profile states it (the wire's keys): Comercio Exterior's Emisor/Domicilio.
 * In Mexico always; colonia, localidad and municipio are SAT catalog keys.
 */
export interface DomicilioFiscal {
  calle: string;
  numero_exterior?: string;
  numero_interior?: string;
  colonia?: string;
  localidad?: string;
  municipio?: string;
  estado: string;
  pais: 'MEX';
  codigo_postal: string;
}

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
  /** Optional: only Comercio Exterior needs it (a request may state it instead). */
  domicilioFiscal: text('domicilio_fiscal', { mode: 'json' }).$type<DomicilioFiscal>(),
  ...timestamps,
});
