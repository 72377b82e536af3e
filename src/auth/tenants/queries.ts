import { eq, sql } from 'drizzle-orm';
import { forDialect, type DbOrTx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { tenantBranding } from '../../db/schema/index.ts';

interface Branding {
  accentColor: string | null;
  logoType: 'image/png' | 'image/jpeg' | null;
  logoSize: number | null;
}

/** Reads of `tenant_branding` that use the engine's own functions. */
export interface TenantQueries {
  /** The branding without the logo's bytes, only their count. */
  branding(db: DbOrTx, tenantId: string): Promise<Branding | undefined>;
}

const sqlite: TenantQueries = {
  // Prepared: GET /tenants/me is on the gateway benchmark's hot path. `length` of a blob counts its bytes.
  branding: async (db, tenantId) =>
    (
      await prepared(db, 'tenantBranding.summary', (d) =>
        d
          .select({ accentColor: tenantBranding.accentColor, logoType: tenantBranding.logoType, logoSize: sql<number | null>`length(${tenantBranding.logo})` })
          .from(tenantBranding)
          .where(eq(tenantBranding.tenantId, sql.placeholder('tenantId')))
          .prepare(),
      ).execute({ tenantId })
    )[0],
};

export const tenantQueries = (db: DbOrTx): TenantQueries => forDialect(db, { sqlite });
