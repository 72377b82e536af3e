import { z } from '@hono/zod-openapi';
import type { DoctoRelacionadoInput, PagoInput } from '../../../cfdi/complements/pagos20/input.ts';
import { UUID } from '../../../cfdi/patterns.ts';
import { Amount, code, type Fits, integer, Rate, str, Tax } from '../fields.ts';
import type { WireComplement } from './index.ts';

/** The `pagos` member of POST /cfdis (tipo P): Complemento para recepción de Pagos 2.0 in snake_case. */

const PagoDocumentoSchema = z
  .object({
    cfdi_id: z
      .string()
      .regex(/^cfdi_[0-9a-zA-Z]{1,60}$/, 'must be a cfdi_ id')
      .optional()
      .openapi({ description: 'An invoice issued here (or send uuid)' }),
    uuid: z.string().regex(UUID, 'must be a UUID').optional().openapi({ description: 'The folio fiscal of the paid invoice' }),
    num_parcialidad: integer(1, 999).optional().openapi({ description: 'Default: the next instalment of that invoice' }),
    imp_pagado: Amount.openapi({ description: 'Amount applied to this document, in its currency' }),
    equivalencia: Rate.optional().openapi({
      description:
        'EquivalenciaDR: units of the document currency per unit of the payment currency. Default 1 for the same currency, tipo_cambio for an MXN document paid in another currency',
    }),
    serie: str(25).optional().openapi({ description: 'Only for a document issued elsewhere' }),
    folio: str(40).optional().openapi({ description: 'Only for a document issued elsewhere' }),
    moneda: z.string().optional().openapi({ description: 'Required for a document issued elsewhere (MonedaDR)' }),
    imp_saldo_ant: Amount.optional().openapi({ description: 'Required for a document issued elsewhere: its balance before this payment' }),
    objeto_imp: z.string().optional().openapi({ description: 'For a document issued elsewhere (ObjetoImpDR); default 01' }),
    impuestos: z
      .object({ traslados: z.array(Tax).max(10).optional(), retenciones: z.array(Tax).max(10).optional() })
      .strict()
      .optional()
      .openapi({
        description: 'For a document issued elsewhere with objeto_imp 02: the taxes of the amount paid (TrasladosDR/RetencionesDR), base and importe included',
      }),
  })
  .strict()
  .superRefine((d, ctx) => {
    if (!d.cfdi_id === !d.uuid) ctx.addIssue({ code: 'custom', path: ['uuid'], message: 'send exactly one of cfdi_id or uuid' });
  })
  .openapi('PagoDocumento');

const PagoSchema = z
  .object({
    fecha_pago: z
      .string()
      .regex(/^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:[0-5]\d)?$/, 'must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ss')
      .openapi({
        example: '2026-11-20T12:00:00',
        description:
          'When the money was received (local time), not after the Fecha of this CFDI. A date alone is written as 12:00:00 that day, ' +
          'or as the Fecha of this CFDI when the payment is of the same day and the receipt is issued before noon',
      }),
    forma_pago: code(/^\d{2}$/, 'must be a 2-digit c_FormaPago key', '03'),
    moneda: z.string().openapi({ example: 'MXN' }),
    tipo_cambio: Amount.optional().openapi({ description: 'TipoCambioP: MXN per unit of moneda; required unless MXN' }),
    monto: Amount.openapi({ example: '1160.00' }),
    num_operacion: str(100).optional(),
    rfc_emisor_cta_ord: z.string().trim().toUpperCase().optional(),
    nom_banco_ord_ext: str(300).optional(),
    cta_ordenante: z.string().optional(),
    rfc_emisor_cta_ben: z.string().trim().toUpperCase().optional(),
    cta_beneficiario: z.string().optional(),
    documentos: z.array(PagoDocumentoSchema).min(1, 'must list at least one paid document').max(1000),
  })
  .strict()
  .openapi('Pago');

export type PagoRequest = Fits<z.output<typeof PagoSchema>, PagoInput>;
export type PagoDocumentoRequest = Fits<z.output<typeof PagoDocumentoSchema>, DoctoRelacionadoInput>;

const PagosResponse = z
  .array(
    z.object({
      fecha_pago: z.string(),
      forma_pago: z.string(),
      moneda: z.string(),
      tipo_cambio: z.number().openapi({ description: 'TipoCambioP: MXN per unit of moneda (1 for MXN)' }),
      monto: z.number(),
      documentos: z.array(
        z.object({
          uuid: z.string(),
          moneda: z.string(),
          equivalencia: z.number().openapi({ description: 'EquivalenciaDR: units of the document currency per unit of the payment currency' }),
          num_parcialidad: z.number().int(),
          imp_saldo_ant: z.number(),
          imp_pagado: z.number(),
          imp_saldo_insoluto: z.number(),
        }),
      ),
    }),
  )
  .optional()
  .openapi({ description: 'Pago (P): the payments and the balance each paid document moved' });

export const pagos20 = {
  request: z
    .array(PagoSchema)
    .min(1, 'must list at least one payment')
    .max(100)
    .optional()
    .openapi({ description: 'Pago (P) only: the payments received (Complemento de Pagos 2.0)' }),
  carriedBy: ({ tipo }, sent) =>
    tipo === 'P' && !sent
      ? { message: 'is required for tipo P (Complemento de Pagos 2.0)' }
      : tipo !== 'P' && sent
        ? { message: 'is only for tipo P' }
        : undefined,
  response: PagosResponse,
  toWire: (pagos) =>
    pagos.map((p) => ({
      fecha_pago: p.fecha_pago,
      forma_pago: p.forma_pago,
      moneda: p.moneda,
      tipo_cambio: Number(p.tipo_cambio),
      monto: Number(p.monto),
      documentos: p.documentos.map((d) => ({
        uuid: d.uuid,
        moneda: d.moneda,
        equivalencia: Number(d.equivalencia),
        num_parcialidad: d.num_parcialidad,
        imp_saldo_ant: Number(d.imp_saldo_ant),
        imp_pagado: Number(d.imp_pagado),
        imp_saldo_insoluto: Number(d.imp_saldo_insoluto),
      })),
    })),
} satisfies WireComplement<'pagos', typeof PagosResponse>;
