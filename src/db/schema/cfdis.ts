import type { ComplementSummaries, ConceptoComplementSummaries } from '../../cfdi/complements/index.ts';
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

export const CFDI_STATUSES = ['vigente', 'en_cola', 'fallido', 'cancelacion_pendiente', 'cancelado'] as const;
export type CfdiStatus = (typeof CFDI_STATUSES)[number];

/** A stored amount: the exact decimal as text, printed as a JSON number on the wire. */
type Amount = string;

/**
 * The response body fields that are not columns: fixed when the invoice is issued, plus the TFD values its stamp
 * adds. Nothing here decides behaviour; that is in the columns. Each complement's part (`pagos`, `nomina`, `carta_porte`)
 * is its own (src/cfdi/complements/).
 */
export type CfdiSummary = CfdiOwnSummary & ComplementSummaries;

interface CfdiOwnSummary {
  emisor: { rfc: string; nombre: string; regimen_fiscal: string };
  receptor: { rfc: string; nombre: string };
  conceptos: ({ descripcion: string; cantidad: Amount; valor_unitario: Amount; importe: Amount; descuento?: Amount } & ConceptoComplementSummaries)[];
  descuento?: Amount;
  total_impuestos_trasladados?: Amount;
  total_impuestos_retenidos?: Amount;
  forma_pago?: string;
  metodo_pago?: string;
}

/** What a stamp adds to the summary (the TFD's SelloSAT, NoCertificadoSAT and cadena original). */
export interface TfdSummary {
  sello_sat: string;
  certificado_sat: string;
  cadena_original_sat: string;
}

/** One row per invoice: what lists, filters and statistics need. The document itself is in cfdi_documents. */
export const cfdis = sqliteTable(
  'cfdis',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    uuid: text('uuid'),
    tipo: text('tipo').notNull(),
    status: text('status', { enum: CFDI_STATUSES }).notNull(),
    serie: text('serie'),
    folio: integer('folio'),
    fecha: text('fecha').notNull(),
    fechaTimbrado: text('fecha_timbrado'),
    receptorRfc: text('receptor_rfc').notNull(),
    receptorNombre: text('receptor_nombre').notNull(),
    moneda: text('moneda').notNull(),
    subtotal: text('subtotal').notNull(),
    total: text('total').notNull(),
    summary: text('summary', { mode: 'json' }).notNull().$type<CfdiSummary & Partial<TfdSummary>>(),
    /** Why a fallido invoice was not stamped (the provider's code and message, or the withdrawal). */
    failureReason: text('failure_reason'),
    /** When it was withdrawn before stamping: an attempt already in flight may still stamp it (then vigente). */
    withdrawnAt: text('withdrawn_at'),
    /** The provider that stamped it (`sandbox` in test mode, the live PAC's name); null while it is not stamped. */
    pac: text('pac'),
    /** The client (receptor_id) the invoice was issued to, whose email is the default recipient of POST /cfdis/{id}/email. */
    clientId: text('client_id'),
    /** The integrator's own reference (its order number): unique per tenant and environment when given. */
    externalId: text('external_id'),
    /** The integrator's string key → string value pairs, echoed in the invoice's webhook events. */
    metadata: text('metadata', { mode: 'json' }).notNull().default({}).$type<Record<string, string>>(),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('cfdis_uuid_unique').on(t.uuid),
    uniqueIndex('cfdis_folio_unique').on(t.tenantId, t.environment, t.serie, t.folio),
    uniqueIndex('cfdis_external_id_unique').on(t.tenantId, t.environment, t.externalId).where(sql`external_id is not null`),
    index('cfdis_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('cfdis_tenant_receptor_idx').on(t.tenantId, t.environment, t.receptorRfc, t.id),
  ],
);
