import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';

/**
 * CFDI counts and amounts per tenant, environment, month of Fecha, type, status and currency, so that GET /stats reads
 * a few rows instead of scanning the invoices. Amounts are exact integers of millionths (no float). SQLite's triggers
 * on `cfdis` (migration 0013) update these rows in the writer's transaction; PostgreSQL's append `cfdi_stats_deltas`
 * instead, which a periodic task folds in here (docs/decisions.md, "Statistics without a hot row").
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

/**
 * What a write of a CFDI moved in `cfdi_stats` and that is not folded in yet: one row per move (+1 and its Total
 * for the key it enters, -1 and minus its Total for the one it leaves), only inserted, so concurrent writers share
 * no row. GET /stats adds them to `cfdi_stats`. PostgreSQL's trigger writes them; SQLite's (one writer) never does.
 */
export const cfdiStatsDeltas = sqliteTable(
  'cfdi_stats_deltas',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    mes: text('mes').notNull(),
    tipo: text('tipo').notNull(),
    status: text('status').notNull(),
    moneda: text('moneda').notNull(),
    /** +1 or -1. */
    cantidad: integer('cantidad').notNull(),
    totalMicros: integer('total_micros').notNull(),
  },
  (t) => [index('cfdi_stats_deltas_tenant_idx').on(t.tenantId, t.environment, t.mes)],
);
