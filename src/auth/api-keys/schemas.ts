import { z } from '@hono/zod-openapi';
import { ENVIRONMENTS, type apiKeys } from '../../db/schema/index.ts';
import { text } from '../../lib/schemas.ts';

export const ApiKeyCreateSchema = z
  .object({
    name: text(100).openapi({ example: 'ERP producción' }),
    environment: z.enum(ENVIRONMENTS).default('test').openapi({ description: 'test → sk_test_ (sandbox), live → sk_live_ (production)' }),
  })
  .strict()
  .openapi('ApiKeyCreate');

export const ApiKeySchema = z
  .object({
    id: z.string().openapi({ example: 'ak_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    name: z.string(),
    environment: z.enum(ENVIRONMENTS),
    prefix: z.string().openapi({ description: 'First characters of the secret, to recognise the key', example: 'sk_test_Ab3x' }),
    last_used_at: z.string().nullable().openapi({ format: 'date-time' }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ApiKey');

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: 'The complete secret. Shown only in this response; store it now.' }),
}).openapi('ApiKeyCreated');

export const RevokedSchema = z.object({ id: z.string(), revoked: z.literal(true), deleted: z.literal(true) }).openapi('ApiKeyRevoked');

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export const toApiKey = (k: ApiKeyRow): z.infer<typeof ApiKeySchema> => ({
  id: k.id,
  name: k.name,
  environment: k.environment,
  prefix: k.prefix,
  last_used_at: k.lastUsedAt,
  created_at: k.createdAt,
});
