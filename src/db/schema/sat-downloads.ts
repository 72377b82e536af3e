import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/**
 * Our side of a SAT Descarga Masiva request (docs/decisions.md, "Descarga Masiva (issue 39)"): requested (a row, not yet
 * sent) → accepted (SAT's IdSolicitud, EstadoSolicitud 1) → in_progress (2) → finished (3: packages known, downloading)
 * → downloaded (every package stored and processed); or rejected (SAT refused it or ended it with 5), empty (5004: no
 * CFDI in the period), expired (6), stalled (still 1 or 2 after SAT_DOWNLOAD_STALLED_SECONDS) or failed (our side
 * cannot go on: the e.firma refused or gone, a package lost).
 */
export const SAT_DOWNLOAD_STATUSES = [
  'requested',
  'accepted',
  'in_progress',
  'finished',
  'downloaded',
  'rejected',
  'empty',
  'expired',
  'stalled',
  'failed',
] as const;
export type SatDownloadStatus = (typeof SAT_DOWNLOAD_STATUSES)[number];
export const SAT_DOWNLOAD_DIRECTIONS = ['received', 'issued'] as const;
export const SAT_DOWNLOAD_KINDS = ['xml', 'metadata'] as const;
/** request: POST /sat-downloads; sync: the scheduled sync (sat_download_syncs). */
export const SAT_DOWNLOAD_ORIGINS = ['request', 'sync'] as const;

/**
 * One SAT request. `period_key` is the period as SAT counts it (direction, kind, dates, filters): at most two rows per
 * tenant, environment and key (`request_number` 1 or 2), the unique index the backstop of SAT's 5002 rule.
 */
export const satDownloads = sqliteTable(
  'sat_downloads',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    direction: text('direction', { enum: SAT_DOWNLOAD_DIRECTIONS }).notNull(),
    kind: text('kind', { enum: SAT_DOWNLOAD_KINDS }).notNull(),
    desde: text('desde').notNull(),
    hasta: text('hasta').notNull(),
    tipo: text('tipo'),
    rfc: text('rfc'),
    periodKey: text('period_key').notNull(),
    requestNumber: integer('request_number').notNull(),
    idSolicitud: text('id_solicitud'),
    status: text('status', { enum: SAT_DOWNLOAD_STATUSES }).notNull().default('requested'),
    codEstatus: text('cod_estatus'),
    estadoSolicitud: integer('estado_solicitud'),
    codigoEstadoSolicitud: text('codigo_estado_solicitud'),
    mensaje: text('mensaje'),
    numeroCfdis: integer('numero_cfdis'),
    /** SAT's package ids, once EstadoSolicitud is 3: JSON array of strings. */
    packages: text('packages', { mode: 'json' }).$type<string[]>(),
    /** Calls to SAT made for it (solicitud, each verification, each download). */
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    requestedAt: text('requested_at'),
    checkedAt: text('checked_at'),
    finishedAt: text('finished_at'),
    origin: text('origin', { enum: SAT_DOWNLOAD_ORIGINS }).notNull().default('request'),
    /** A received metadata request of the sync: when the sync decided its XML follow-up (requested, or nothing missing). */
    followedUpAt: text('followed_up_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('sat_downloads_period_unique').on(t.tenantId, t.environment, t.periodKey, t.requestNumber),
    index('sat_downloads_tenant_idx').on(t.tenantId, t.environment, t.id),
  ],
);
