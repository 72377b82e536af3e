import { z } from '@hono/zod-openapi';
import { ROLES, type users } from '../../db/schema/index.ts';
import { Email, Password, text } from '../../lib/schemas.ts';

const Role = z.enum(ROLES).openapi({ description: 'ADMIN: everything. OPERATOR: issues and cancels CFDIs, manages clients and series. VIEWER: reads only.' });
export const PersonName = text(200).openapi({ example: 'Ana López' });

export const UserSchema = z
  .object({
    id: z.string().openapi({ example: 'usr_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    email: z.string(),
    nombre: z.string(),
    role: Role,
    last_login_at: z.string().nullable().openapi({ format: 'date-time' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('User');

export const UserCreateSchema = z.object({ email: Email, password: Password, nombre: PersonName, role: Role }).strict().openapi('UserCreate');

export const UserPatchSchema = z
  .object({ email: Email.optional(), nombre: PersonName.optional(), role: Role.optional() })
  .strict()
  .openapi('UserPatch', { description: 'ADMIN may change any field of any user; others may change their own nombre only.' });

export const ChangePasswordSchema = z
  .object({
    current_password: z.string().max(128).optional().openapi({ description: 'Required when changing your own password' }),
    new_password: Password,
  })
  .strict()
  .openapi('ChangePassword');

export type UserRow = typeof users.$inferSelect;

export const toUser = (u: UserRow): z.infer<typeof UserSchema> => ({
  id: u.id,
  email: u.email,
  nombre: u.nombre,
  role: u.role,
  last_login_at: u.lastLoginAt,
  created_at: u.createdAt,
  updated_at: u.updatedAt,
});
