import { z } from '@hono/zod-openapi';
import type { fiels } from '../../db/schema/index.ts';
import { CsdUploadSchema } from '../csds/schemas.ts';

/** The same three multipart fields as a CSD upload: SAT issues both as a .cer, a .key and its password. */
export const FielUploadSchema = CsdUploadSchema.openapi('FielUpload');

export const FielSchema = z
  .object({
    id: z.string().openapi({ example: 'fiel_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    rfc: z.string().openapi({ example: 'EKU9003173C9' }),
    nombre: z.string().openapi({ description: 'Subject name in the certificate', example: 'ESCUELA KEMPER URGATE SA DE CV' }),
    serial_number: z.string().openapi({ example: '30001000000500003415', description: 'NoCertificado (20 digits)' }),
    valid_from: z.string().openapi({ format: 'date-time' }),
    valid_to: z.string().openapi({ format: 'date-time' }),
    expired: z.boolean().openapi({ description: 'Past valid_to now: SAT refuses it; upload the renewed e.firma' }),
    uploaded_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Fiel');

export type FielRow = typeof fiels.$inferSelect;

export const toFiel = (r: FielRow, now: Date): z.infer<typeof FielSchema> => ({
  id: r.id,
  rfc: r.rfc,
  nombre: r.name,
  serial_number: r.serialNumber,
  valid_from: r.validFrom,
  valid_to: r.validTo,
  expired: new Date(r.validTo) < now,
  uploaded_at: r.createdAt,
});
