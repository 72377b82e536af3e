import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';

/**
 * CFDI counts and amounts per tenant, environment, month of Fecha, type, status and currency, kept by SQLite
 * triggers on `cfdis` (migration 0013): every writer of a CFDI updates them in its own transaction, and GET /stats
 * reads a few rows instead of scanning the invoices. Amounts are exact integers of millionths (no float).
 */
export const cfdiStats = sqliteTable(
  'cfdi_stats',
  {
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    /** YYYY-MM of the CFDI's Fecha. */
    mes: text('mes').notNull(),
    tipo: text('tipo').notNull(),
    status: text('status').notNull(),
    moneda: text('moneda').notNull(),
    cantidad: integer('cantidad').notNull(),
    /** Σ Total in millionths of the currency unit. */
    totalMicros: integer('total_micros').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.environment, t.mes, t.tipo, t.status, t.moneda] })],
);
