import { z } from '@hono/zod-openapi';
import { CSD_STATUSES, ENVIRONMENTS, type csds } from '../../db/schema/index.ts';

/** Largest accepted .cer or .key: SAT's are about 1.5 KiB. */
export const MAX_CSD_FILE_BYTES = 64 * 1024;

const file = (name: string, description: string) =>
  z.instanceof(File, { message: `must be a file (multipart field "${name}")` }).openapi({ type: 'string', format: 'binary', description });

export const CsdUploadSchema = z
  .object({
    cer: file('cer', 'The certificate (.cer), DER or PEM'),
    key: file('key', 'The private key (.key), encrypted PKCS#8, DER or PEM'),
    password: z
      .string({ message: 'is required (multipart field "password")' })
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .openapi({ description: 'Password of the .key. Used once to open the key; never stored.', format: 'password' }),
  })
  .openapi('CsdUpload');

export const CsdSchema = z
  .object({
    id: z.string().openapi({ example: 'csd_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    rfc: z.string().openapi({ example: 'EKU9003173C9' }),
    serial_number: z.string().openapi({ example: '30001000000500003416', description: 'NoCertificado (20 digits)' }),
    nombre: z.string().openapi({ description: 'Subject name in the certificate' }),
    environment: z.enum(ENVIRONMENTS),
    valid_from: z.string().openapi({ format: 'date-time' }),
    valid_to: z.string().openapi({ format: 'date-time' }),
    status: z.enum(CSD_STATUSES).openapi({ description: 'active: seals new CFDIs (one per tenant and environment); inactive; expired (past valid_to)' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Csd');

export type CsdRow = typeof csds.$inferSelect;

export const toCsd = (r: CsdRow): z.infer<typeof CsdSchema> => ({
  id: r.id,
  rfc: r.rfc,
  serial_number: r.serialNumber,
  nombre: r.name,
  environment: r.environment,
  valid_from: r.validFrom,
  valid_to: r.validTo,
  status: r.status,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
