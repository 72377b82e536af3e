import { blob, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { satDownloads } from './sat-downloads.ts';
import { tenants } from './tenants.ts';

/**
 * A package of a finished SAT request. SAT serves one at most twice: `downloads` counts the calls started (written
 * before each call, so a crash never lets the count fall behind SAT's), `bytes` is kept from the first success, so
 * processing (`processed_at`) resumes from the row and the package is never lost nor asked for a third time.
 */
export const satDownloadPackages = sqliteTable(
  'sat_download_packages',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    satDownloadId: text('sat_download_id')
      .notNull()
      .references(() => satDownloads.id, { onDelete: 'cascade' }),
    packageId: text('package_id').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }),
    downloads: integer('downloads').notNull().default(0),
    downloadedAt: text('downloaded_at'),
    processedAt: text('processed_at'),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [uniqueIndex('sat_download_packages_unique').on(t.satDownloadId, t.packageId)],
);
