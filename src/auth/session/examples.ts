import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { LoginSchema, RefreshSchema, RegisterSchema } from './schemas.ts';

/** The sandbox tenant is SAT's test taxpayer EKU9003173C9, whose test CSD is public: registering it always works. */
export const RegisterExamples = {
  tenant: {
    summary: 'A tenant (the issuer) and its first ADMIN',
    value: {
      email: 'ana@example.com',
      password: 'correct horse battery staple',
      nombre: 'Ana López',
      tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
    },
  },
} satisfies BodyExamples<z.input<typeof RegisterSchema>>;

export const LoginExamples = {
  login: { summary: 'The user registered above', value: { email: 'ana@example.com', password: 'correct horse battery staple' } },
} satisfies BodyExamples<z.input<typeof LoginSchema>>;

/** A refresh token is a credential: no example can be a live one. */
export const RefreshExamples = {
  refresh: {
    summary: 'The refresh_token from POST /auth/login (single use)',
    description: 'Replace it with the refresh_token of your last login or refresh.',
    value: { refresh_token: 'rt_4kQx9mZr2TfWb7NcYpLd0sHvJ8uEaG3i' },
  },
} satisfies BodyExamples<z.input<typeof RefreshSchema>>;
