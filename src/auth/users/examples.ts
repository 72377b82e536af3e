import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { ChangePasswordSchema, UserCreateSchema, UserPatchSchema } from './schemas.ts';

export const UserCreateExamples = {
  operator: {
    summary: 'An OPERATOR: issues and cancels CFDIs',
    value: { email: 'luis@example.com', password: 'another long passphrase', nombre: 'Luis Pérez', role: 'OPERATOR' },
  },
} satisfies BodyExamples<z.input<typeof UserCreateSchema>>;

export const UserPatchExamples = {
  role: { summary: 'Rename and make a VIEWER (reads only)', value: { nombre: 'Luis Pérez Gómez', role: 'VIEWER' } },
} satisfies BodyExamples<z.input<typeof UserPatchSchema>>;

export const ChangePasswordExamples = {
  own: {
    summary: 'Your own password: send the current one',
    description: "An ADMIN changing another user's password sends new_password only.",
    value: { current_password: 'correct horse battery staple', new_password: 'a brand new passphrase' },
  },
} satisfies BodyExamples<z.input<typeof ChangePasswordSchema>>;
