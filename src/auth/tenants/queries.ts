import { eq, sql, type SQL } from 'drizzle-orm';
import { forDialect, type DbOrTx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { tenantBranding } from '../../db/schema/index.ts';

export interface Branding {
  accentColor: string | null;
  logoType: 'image/png' | 'image/jpeg' | null;
  logoSize: number | null;
}

/** Reads of `tenant_branding` that use the engine's own functions. */
export interface TenantQueries {
  /** The branding without the logo's bytes, only their count. */
  branding(db: DbOrTx, tenantId: string): Promise<Branding | undefined>;
}

/** The branding summary with `size` counting the logo's bytes in the engine's own words. */
const brandingWith = (size: SQL<number | null>): TenantQueries => ({
  // Prepared: GET /tenants/me is on the gateway benchmark's hot path.
  branding: async (db, tenantId) =>
    (
      await prepared(db, 'tenantBranding.summary', (d) =>
        d
          .select({ accentColor: tenantBranding.accentColor, logoType: tenantBranding.logoType, logoSize: size })
          .from(tenantBranding)
          .where(eq(tenantBranding.tenantId, sql.placeholder('tenantId')))
          .prepare(),
      ).execute({ tenantId })
    )[0],
});

// SQLite's `length` of a blob counts bytes; PostgreSQL's `length` of bytea does too, `octet_length` says so.
const sqlite = brandingWith(sql<number | null>`length(${tenantBranding.logo})`);
const postgres = brandingWith(sql<number | null>`octet_length(${tenantBranding.logo})`);

export const tenantQueries = (db: DbOrTx): TenantQueries => forDialect(db, { sqlite, postgres });
