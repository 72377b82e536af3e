import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import pkg from '../../../package.json' with { type: 'json' };
import type { PdfOptions } from '../../cfdi/pdf.ts';
import type { Db } from '../../db/index.ts';
import { cfdiPdfs } from '../../db/schema/index.ts';
import type { PdfPool } from './pdf-pool.ts';

/**
 * Everything a PDF's bytes depend on, hashed: the stamped XML, the marks (sandbox, cancelled), the tenant's accent
 * colour and logo, and the service's version (its layout). A change to any of them is a new fingerprint, so the
 * cache needs no invalidation: a stored PDF whose fingerprint differs is never served.
 */
function fingerprintOf(xml: Buffer, options: PdfOptions): string {
  const hash = createHash('sha256');
  const { logo, accentColor } = options.branding ?? {};
  hash.update(JSON.stringify({ version: pkg.version, sandbox: options.sandbox, cancelled: options.cancelled ?? false, accentColor, logo: logo?.type }));
  if (logo) hash.update(createHash('sha256').update(logo.bytes).digest());
  hash.update(xml);
  return hash.digest('base64url');
}

/**
 * A stamped CFDI's PDF: from the cache when it holds this very rendering, else rendered on the pool (counted against
 * `owner`'s share) and stored for the next request, of any instance. Two requests that miss together both render;
 * the later write wins, and either is right for the state it was rendered from.
 */
export async function cachedPdf(
  deps: { db: Db; now: () => Date; pdfPool: PdfPool },
  doc: { cfdiId: string; tenantId: string; xml: Buffer },
  options: PdfOptions,
  owner: string,
): Promise<Uint8Array> {
  const fingerprint = fingerprintOf(doc.xml, options);
  const hit = (
    await deps.db
      .select({ pdf: cfdiPdfs.pdf })
      .from(cfdiPdfs)
      .where(and(eq(cfdiPdfs.cfdiId, doc.cfdiId), eq(cfdiPdfs.fingerprint, fingerprint)))
  )[0];
  if (hit) return new Uint8Array(hit.pdf);
  const pdf = await deps.pdfPool.render(doc.xml.toString('utf8'), options, owner);
  const row = { fingerprint, pdf: Buffer.from(pdf), renderedAt: deps.now().toISOString() };
  try {
    await deps.db
      .insert(cfdiPdfs)
      .values({ cfdiId: doc.cfdiId, tenantId: doc.tenantId, ...row })
      .onConflictDoUpdate({ target: cfdiPdfs.cfdiId, set: row });
  } catch {
    // The PDF is right whether or not it was stored (a full disk, a CFDI deleted with its tenant): the next request renders again.
  }
  return pdf;
}
