import { blob, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tenants } from './tenants.ts';

export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** What the printed invoice shows of the tenant's brand. Apart from `tenants`, whose rows are cached per request. */
export const tenantBranding = sqliteTable('tenant_branding', {
  tenantId: text('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  logo: blob('logo', { mode: 'buffer' }),
  logoType: text('logo_type', { enum: LOGO_TYPES }),
  /** #RRGGBB */
  accentColor: text('accent_color'),
  updatedAt: text('updated_at').notNull(),
});
