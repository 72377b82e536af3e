import { z } from '@hono/zod-openapi';
import { ENVIRONMENTS } from '../../db/schema/index.ts';
import { Email, Password } from '../../lib/schemas.ts';
import { TenantInputSchema, TenantSchema } from '../tenants/schemas.ts';
import { PersonName, UserSchema } from '../users/schemas.ts';

export const RegisterSchema = z.object({ email: Email, password: Password, nombre: PersonName, tenant: TenantInputSchema }).strict().openapi('Register');

export const LoginSchema = z
  .object({
    email: Email,
    password: z.string().min(1, 'must not be empty').max(128),
    tenant_id: z.string().min(1, 'must not be empty').max(64).optional().openapi({
      description:
        'Which tenant to log into: required when the email belongs to users of several tenants (without it, such a login is refused as a wrong password).',
      example: 'ten_01jd2m3k4n5p6q7r8s9t0v1w2x',
    }),
  })
  .strict()
  .openapi('Login');

export const RefreshSchema = z
  .object({ refresh_token: z.string().min(1, 'must not be empty').max(200) })
  .strict()
  .openapi('RefreshRequest');

export const TokensSchema = z
  .object({
    access_token: z.string().openapi({ description: 'JWT (HS256)' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().openapi({ example: 86400 }),
    refresh_token: z.string().openapi({ description: 'Single use: each refresh returns a new one. Valid 30 days.' }),
  })
  .openapi('Tokens');

export const LoginResponseSchema = TokensSchema.extend({ user: UserSchema }).openapi('LoginResponse');
export const RegisterResponseSchema = TokensSchema.extend({ tenant: TenantSchema, user: UserSchema }).openapi('RegisterResponse');

export const MeSchema = z
  .object({
    tenant: TenantSchema,
    environment: z.enum(ENVIRONMENTS),
    user: z.union([UserSchema, z.null()]),
    api_key: z.object({ id: z.string(), name: z.string(), environment: z.enum(ENVIRONMENTS) }).nullable(),
  })
  .openapi('Me');
