import { z } from '@hono/zod-openapi';
import type { clients } from '../../db/schema/index.ts';
import { Email, Metadata, PaginationQuery } from '../../lib/schemas.ts';
import { str, withTextCheck } from '../cfdis/fields.ts';

// Shapes only: SAT rules (catalogs, persona type, generic RFCs) are checked by checkReceptor, which names the rule;
// which characters the text may hold, by the same check as a CFDI request (a client becomes a receptor).
const Rfc = z
  .string()
  .trim()
  .toUpperCase()
  .min(1, 'must not be empty')
  .max(13, 'must be at most 13 characters')
  .openapi({ example: 'EKU9003173C9', description: 'RFC; XAXX010101000 for público en general, XEXX010101000 for a foreigner' });
const Nombre = str(300).openapi({
  example: 'ESCUELA KEMPER URGATE',
  description: 'Exactly as in the Constancia de Situación Fiscal, without the corporate suffix; "PUBLICO EN GENERAL" only with XAXX010101000',
});
const Key = (max: number, example: string, description: string) =>
  z.string().trim().toUpperCase().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).openapi({ example, description });
const RegimenFiscal = Key(3, '601', 'RegimenFiscalReceptor (c_RegimenFiscal); 616 for generic RFCs');
const DomicilioFiscal = Key(5, '42501', "DomicilioFiscalReceptor: postal code of the fiscal address (c_CodigoPostal); for generic RFCs the issuer's");
const UsoCfdi = Key(4, 'G03', 'Default UsoCFDI of invoices to this client (c_UsoCFDI), allowed for its persona type and régimen');
const ResidenciaFiscal = Key(3, 'USA', 'ResidenciaFiscal (c_Pais, not MEX): only for XEXX010101000');
const NumRegIdTrib = str(40).openapi({ example: '123456789', description: 'Foreign tax id (NumRegIdTrib): only for XEXX010101000, with residencia_fiscal' });
const ClientEmail = Email.openapi({ description: "Where to send this client's invoices" });

export const ClientCreateSchema = withTextCheck(
  z
    .object({
      rfc: Rfc,
      nombre: Nombre,
      regimen_fiscal: RegimenFiscal,
      domicilio_fiscal: DomicilioFiscal,
      uso_cfdi: UsoCfdi,
      email: ClientEmail.optional(),
      residencia_fiscal: ResidenciaFiscal.optional(),
      num_reg_id_trib: NumRegIdTrib.optional(),
      metadata: Metadata.optional().openapi({
        description: 'Your own key → value pairs for this client (e.g. its id in your ERP); not copied into its invoices',
      }),
    })
    .strict(),
  ['email', 'metadata'],
).openapi('ClientCreate');

export const ClientPatchSchema = withTextCheck(
  z
    .object({
      rfc: Rfc.optional(),
      nombre: Nombre.optional(),
      regimen_fiscal: RegimenFiscal.optional(),
      domicilio_fiscal: DomicilioFiscal.optional(),
      uso_cfdi: UsoCfdi.optional(),
      email: ClientEmail.nullable().optional(),
      residencia_fiscal: ResidenciaFiscal.nullable().optional(),
      num_reg_id_trib: NumRegIdTrib.nullable().optional(),
      metadata: Metadata.optional().openapi({ description: "Replaces the client's whole metadata; {} clears it" }),
    })
    .strict(),
  ['email', 'metadata'],
).openapi('ClientPatch', { description: 'Fields to change; null clears email, residencia_fiscal or num_reg_id_trib. The result is checked as a whole.' });

export const ClientSchema = z
  .object({
    id: z.string().openapi({ example: 'cli_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    rfc: z.string(),
    nombre: z.string(),
    regimen_fiscal: z.string(),
    domicilio_fiscal: z.string(),
    uso_cfdi: z.string(),
    email: z.string().nullable(),
    residencia_fiscal: z.string().nullable(),
    num_reg_id_trib: z.string().nullable(),
    metadata: Metadata.openapi({ description: 'Your key → value pairs ({} when none were sent)' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Client');

export const ClientListQuery = PaginationQuery.extend({
  q: z
    .string()
    .max(100, 'must be at most 100 characters')
    .optional()
    .openapi({ param: { name: 'q', in: 'query' }, description: 'RFC prefix or part of the name (case- and accent-insensitive)', example: 'kemper' }),
});

export type ClientCreate = z.infer<typeof ClientCreateSchema>;
export type ClientPatch = z.infer<typeof ClientPatchSchema>;
export type ClientRow = typeof clients.$inferSelect;

export const toClient = (r: ClientRow): z.infer<typeof ClientSchema> => ({
  id: r.id,
  rfc: r.rfc,
  nombre: r.nombre,
  regimen_fiscal: r.regimenFiscal,
  domicilio_fiscal: r.domicilioFiscal,
  uso_cfdi: r.usoCfdi,
  email: r.email,
  residencia_fiscal: r.residenciaFiscal,
  num_reg_id_trib: r.numRegIdTrib,
  metadata: r.metadata,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
