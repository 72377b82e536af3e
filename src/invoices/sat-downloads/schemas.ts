import { z } from '@hono/zod-openapi';
import {
  SAT_DOWNLOAD_DIRECTIONS,
  SAT_DOWNLOAD_KINDS,
  SAT_DOWNLOAD_ORIGINS,
  SAT_DOWNLOAD_STATUSES,
  type satDownloadSyncs,
  type satDownloads,
} from '../../db/schema/index.ts';
import { PaginationQuery } from '../../lib/schemas.ts';
import { SatDownloadCreateExamples, SatDownloadSyncExamples } from './examples.ts';

const DateOrDateTime = (description: string) => z.string().max(19).openapi({ description, example: '2026-10-01' });

export const SatDownloadCreateSchema = z
  .object({
    direction: z.enum(SAT_DOWNLOAD_DIRECTIONS).openapi({ description: 'received: CFDI issued to the tenant; issued: by it' }),
    kind: z.enum(SAT_DOWNLOAD_KINDS).openapi({ description: "xml: the CFDI themselves; metadata: SAT's 12-column listing (cancelled ones too)" }),
    desde: DateOrDateTime("Start of the period, SAT's local time: YYYY-MM-DD (from 00:00:00) or YYYY-MM-DDTHH:mm:ss; not before six years ago"),
    hasta: DateOrDateTime('End of the period: YYYY-MM-DD (to 23:59:59) or YYYY-MM-DDTHH:mm:ss; strictly after desde'),
    tipo: z.string().max(1).optional().openapi({ description: 'c_TipoDeComprobante: I, E, T, N or P', example: 'I' }),
    rfc: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: 'The counterparty: the emisor (received) or the receptor (issued); one RFC', example: 'XAXX010101000' }),
  })
  .strict()
  .openapi('SatDownloadCreate', { example: SatDownloadCreateExamples.receivedXml.value });

export const SatDownloadSchema = z
  .object({
    id: z.string().openapi({ example: 'satdl_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    direction: z.enum(SAT_DOWNLOAD_DIRECTIONS),
    kind: z.enum(SAT_DOWNLOAD_KINDS),
    desde: z.string().openapi({ example: '2026-10-01T00:00:00' }),
    hasta: z.string().openapi({ example: '2026-10-31T23:59:59' }),
    tipo: z.string().nullable(),
    rfc: z.string().nullable(),
    request_number: z.number().int().openapi({ description: '1 or 2: SAT accepts a period at most twice, ever (5002)' }),
    status: z.enum(SAT_DOWNLOAD_STATUSES).openapi({
      description:
        'requested (recorded, not yet sent) → accepted (SAT EstadoSolicitud 1) → in_progress (2) → finished (3, downloading) → downloaded; ' +
        'or rejected (SAT refused it or ended it with 5), empty (5004, no CFDI), expired (6), stalled (still 1 or 2 after SAT_DOWNLOAD_STALLED_SECONDS), failed (see error)',
    }),
    id_solicitud: z.string().nullable().openapi({ description: "SAT's IdSolicitud" }),
    cod_estatus: z.string().nullable().openapi({ description: "SAT's last CodEstatus", example: '5000' }),
    estado_solicitud: z.number().int().nullable().openapi({ description: "SAT's EstadoSolicitud (1–6)" }),
    codigo_estado_solicitud: z.string().nullable().openapi({ description: "SAT's CodigoEstadoSolicitud" }),
    mensaje: z.string().nullable().openapi({ description: "SAT's last Mensaje" }),
    numero_cfdis: z.number().int().nullable(),
    packages: z.array(z.string()).openapi({ description: "SAT's package ids (IdsPaquetes)" }),
    attempts: z.number().int().openapi({ description: 'Calls made to SAT for it' }),
    error: z.string().nullable(),
    origin: z.enum(SAT_DOWNLOAD_ORIGINS).openapi({ description: 'request: POST /sat-downloads; sync: the scheduled sync (PUT /sat-downloads/sync)' }),
    requested_at: z.string().nullable().openapi({ format: 'date-time', description: 'When SAT accepted it' }),
    checked_at: z.string().nullable().openapi({ format: 'date-time' }),
    finished_at: z.string().nullable().openapi({ format: 'date-time' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('SatDownload');

export const SatDownloadCreatedSchema = z.object({ data: z.array(SatDownloadSchema) }).openapi('SatDownloadsCreated');

export const SatDownloadListQuery = PaginationQuery;

type SatDownloadRow = typeof satDownloads.$inferSelect;

export const toSatDownload = (r: SatDownloadRow): z.infer<typeof SatDownloadSchema> => ({
  id: r.id,
  direction: r.direction,
  kind: r.kind,
  desde: r.desde,
  hasta: r.hasta,
  tipo: r.tipo,
  rfc: r.rfc,
  request_number: r.requestNumber,
  status: r.status,
  id_solicitud: r.idSolicitud,
  cod_estatus: r.codEstatus,
  estado_solicitud: r.estadoSolicitud,
  codigo_estado_solicitud: r.codigoEstadoSolicitud,
  mensaje: r.mensaje,
  numero_cfdis: r.numeroCfdis,
  packages: r.packages ?? [],
  attempts: r.attempts,
  error: r.error,
  origin: r.origin,
  requested_at: r.requestedAt,
  checked_at: r.checkedAt,
  finished_at: r.finishedAt,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const SatDownloadSyncUpdateSchema = z
  .object({ enabled: z.boolean().openapi({ description: 'true: sync this environment every day; false: stop (what was requested goes on)' }) })
  .strict()
  .openapi('SatDownloadSyncUpdate', { example: SatDownloadSyncExamples.enable.value });

export const SatDownloadSyncSchema = z
  .object({
    enabled: z.boolean(),
    synced_through: z
      .string()
      .nullable()
      .openapi({ description: "The last day (SAT's local date) whose metadata the sync requested; null: none yet", example: '2026-11-23' }),
    last_run_at: z.string().nullable().openapi({ format: 'date-time' }),
    last_result: z.string().nullable().openapi({ description: 'What the last run did, or why it skipped (no FIEL)', example: 'requested 2' }),
    updated_at: z.string().nullable().openapi({ format: 'date-time', description: 'null: never set (the sync is off)' }),
  })
  .openapi('SatDownloadSync');

type SatDownloadSyncRow = typeof satDownloadSyncs.$inferSelect;

/** No row: never opted in, off. */
export const toSatDownloadSync = (r: SatDownloadSyncRow | undefined): z.infer<typeof SatDownloadSyncSchema> => ({
  enabled: r?.enabled ?? false,
  synced_through: r?.syncedThrough ?? null,
  last_run_at: r?.lastRunAt ?? null,
  last_result: r?.lastResult ?? null,
  updated_at: r?.updatedAt ?? null,
});
