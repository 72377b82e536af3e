import { z } from '@hono/zod-openapi';
import { MOTIVOS } from '../../cfdi/cancellation.ts';
import { UUID } from '../../cfdi/patterns.ts';
import { CANCELLATION_STATUSES, CFDI_STATUSES } from '../../db/schema/index.ts';
import { CANCEL_SCENARIOS } from '../../pac/types.ts';
import { CFDI_REF_PATTERN } from '../cfdis/schemas.ts';
import { IdempotencyKeyHeader } from '../../lib/schemas.ts';

export const CfdiRefParams = z.object({
  id: z
    .string()
    .regex(CFDI_REF_PATTERN, 'must be a cfdi_ id or a UUID')
    .openapi({
      param: { name: 'id', in: 'path' },
      example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x',
      description: 'The cfdi_ id or the folio fiscal (UUID, any case)',
    }),
});

export const CancelBodySchema = z
  .object({
    motivo: z.enum(MOTIVOS, { message: 'must be one of 01, 02, 03, 04 (c_MotivoCancelacion)' }).openapi({
      description:
        '01 errors with a replacement (needs folio_sustitucion), 02 errors without one, 03 the operation did not happen, 04 nominative operation in a global invoice',
    }),
    folio_sustitucion: z.string().regex(UUID, 'must be a UUID').optional().openapi({
      description: 'Motivo 01 only: the UUID of the vigente CFDI of this tenant that replaces this one (issued with cfdi_relacionados tipo_relacion 04 to it)',
    }),
  })
  .strict()
  .openapi('CancelRequest');

export const CancellationSchema = z
  .object({
    id: z.string().openapi({ example: 'can_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    cfdi_id: z.string(),
    uuid: z.string(),
    status: z
      .enum(CANCELLATION_STATUSES)
      .openapi({ description: 'en_proceso (waiting for SAT or the receiver), cancelado, rechazado (the receiver said no), fallido (the request failed)' }),
    cfdi_status: z.enum(CFDI_STATUSES),
    motivo: z.enum(MOTIVOS),
    folio_sustitucion: z.string().nullable(),
    requiere_aceptacion: z.boolean().openapi({ description: 'Whether the rules (RMF 2.7.1.35) make the receiver accept: 3 business days, silence accepts' }),
    estado_sat: z.string().nullable().openapi({ description: 'SAT Estado as last reported (Vigente, Cancelado)' }),
    estatus_cancelacion: z.string().nullable().openapi({
      description:
        'SAT EstatusCancelacion as last reported (En proceso, Cancelado sin aceptación, Cancelado con aceptación, Plazo vencido, Solicitud rechazada)',
    }),
    motivo_rechazo: z.string().nullable().openapi({ description: 'Why it was rejected or failed' }),
    requested_at: z.string().openapi({ format: 'date-time' }),
    resolved_at: z.string().nullable().openapi({ format: 'date-time' }),
    request_xml_url: z.string().openapi({ description: "The signed cancellation request (XML-DSig with the issuer's CSD)" }),
    acuse_xml_url: z.string().nullable().openapi({ description: "SAT's acknowledgement (acuse), once the PAC returned it" }),
    historial: z
      .array(z.object({ from: z.string(), to: z.string(), reason: z.string(), at: z.string() }))
      .openapi({ description: 'Every status move of the CFDI after stamping, oldest first' }),
  })
  .openapi('Cancellation');

export const SatStatusSchema = z
  .object({
    uuid: z.string(),
    consulted_at: z.string().openapi({ format: 'date-time' }),
    CodigoEstatus: z.string().openapi({ example: 'S - Comprobante obtenido satisfactoriamente.' }),
    Estado: z.string().openapi({ description: 'Vigente, Cancelado or No Encontrado' }),
    EsCancelable: z.string().openapi({ description: 'No cancelable, Cancelable sin aceptación or Cancelable con aceptación' }),
    EstatusCancelacion: z
      .string()
      .openapi({ description: 'Empty, En proceso, Plazo vencido, Cancelado con aceptación, Cancelado sin aceptación or Solicitud rechazada' }),
    ValidacionEFOS: z.string().openapi({ description: '200/201: the issuer is not in the EFOS list; 100: it is' }),
  })
  .openapi('SatStatus');

export const CancelHeaders = z.object({
  'x-sandbox-scenario': z
    .string()
    .optional()
    .openapi({ enum: [...CANCEL_SCENARIOS], description: 'Test mode only: forces the cancellation outcome (ignored in live mode)' }),
  'idempotency-key': IdempotencyKeyHeader,
});

export const WithdrawnSchema = z.object({ id: z.string(), status: z.literal('fallido'), withdrawn_at: z.string() }).openapi('Withdrawn');
