import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';
import { receivedCfdis } from './received-cfdis.ts';
import { tenants } from './tenants.ts';

/**
 * What reconciliation reads of a received REP or Egreso (src/cfdi/received/reconcile.ts), written at intake: one line
 * per DoctoRelacionado of an REP (`pago`: ImpPagado in MonedaDR) or per CfdiRelacionado 01/07 of an Egreso (`01`,
 * `07`: the Egreso's Total and Moneda, `position` its order in the document), by the UUID it names.
 */
export const receivedCfdiLines = sqliteTable(
  'received_cfdi_lines',
  {
    receivedCfdiId: text('received_cfdi_id')
      .notNull()
      .references(() => receivedCfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    kind: text('kind', { enum: ['pago', '01', '07'] }).notNull(),
    position: integer('position').notNull(),
    /** The paid or credited invoice's UUID, upper case. */
    targetUuid: text('target_uuid').notNull(),
    amount: text('amount').notNull(),
    moneda: text('moneda').notNull(),
  },
  (t) => [index('received_cfdi_lines_target_idx').on(t.tenantId, t.environment, t.targetUuid), index('received_cfdi_lines_doc_idx').on(t.receivedCfdiId)],
);
