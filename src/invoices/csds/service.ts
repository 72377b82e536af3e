import { and, asc, eq, gt, isNull, lte, ne, sql, type SQL } from 'drizzle-orm';
import { createSigner, exportPrivateKey, importPrivateKey, parseCertificate, type CsdSigner } from '../../cfdi/csd.ts';
import type { Db } from '../../db/client.ts';
import { csds, type Environment } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import type { RateLimiter, RateLimits } from '../../gateway/rate-limit.ts';
import { conflict, notFound } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import { prepared } from '../../db/prepared.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { openSecret, sealSecret } from '../../lib/secret-box.ts';
import { recordEvent } from '../events.ts';
import { isTestCsd, TEST_CSD_IN_LIVE } from './authorities.ts';
import { openCredential } from './credential.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { toCsd, type CsdRow } from './schemas.ts';
import { withTransaction } from '../../db/index.ts';

export interface CsdDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  identity: IdentityDirectory;
}

const EXPIRY_NOTICE_DAYS = 30;

/**
 * Uploads that try a password (their certificate passed its checks), accepted or not, per tenant and environment in a
 * clock hour: each derives a key. A tenant uploads a CSD every few years; ten leaves room for mistakes. Refusals of
 * the certificate cost no derivation and are left to the gateway's per-minute limit.
 */
export const CSD_UPLOADS_PER_HOUR = 10;
export const createCsdUploadLimiter = (rateLimits: RateLimits) => rateLimits('csd-uploads', 3_600_000);
const scoped = (actor: Actor) => and(eq(csds.tenantId, actor.tenantId), eq(csds.environment, actor.environment));

async function getCsdRow(deps: CsdDeps, actor: Actor, id: string): Promise<CsdRow> {
  const row = (
    await deps.db
      .select()
      .from(csds)
      .where(and(eq(csds.id, id), scoped(actor)))
  )[0];
  if (!row) throw notFound('CSD');
  return row;
}

/**
 * Checks the pair as a PAC would (a CSD, not a FIEL; valid now; the tenant's RFC; the password opens the key;
 * the key is the certificate's), then stores it as the active CSD of the tenant and environment.
 */
export async function uploadCsd(
  deps: CsdDeps & { uploads: RateLimiter },
  actor: Actor,
  input: { cer: File; key: File; password: string },
  bindIdempotency?: IdempotencyClaim['bind'],
) {
  const now = deps.now();
  const { certificate, privateKey } = await openCredential(deps, actor, input, {
    kind: 'CSD',
    otherKind: 'is a FIEL (e.firma) certificate, which cannot seal invoices: upload the CSD (Certificado de Sello Digital)',
    testInLive: TEST_CSD_IN_LIVE,
    uploads: {
      limiter: deps.uploads,
      key: `${actor.tenantId}:${actor.environment}`,
      limit: CSD_UPLOADS_PER_HOUR,
      what: 'CSD uploads that try a password per hour per tenant and environment',
    },
  });
  const duplicate = (
    await deps.db
      .select({ id: csds.id })
      .from(csds)
      .where(and(scoped(actor), eq(csds.serialNumber, certificate.noCertificado)))
  )[0];
  if (duplicate)
    throw conflict('CSD already uploaded', [{ field: 'cer', issue: `certificate ${certificate.noCertificado} is already stored as ${duplicate.id}` }]);

  const id = newId('csd', now.getTime());
  const stamp = now.toISOString();
  // serializable: one active CSD: the deactivation must see a CSD another upload inserts meanwhile
  await withTransaction(deps.db, { isolation: 'serializable', name: 'csds.upload' }, async (tx) => {
    await tx
      .update(csds)
      .set({ status: 'inactive', updatedAt: stamp })
      .where(and(scoped(actor), eq(csds.status, 'active')));
    await tx.insert(csds).values({
      id,
      tenantId: actor.tenantId,
      environment: actor.environment,
      rfc: certificate.rfc,
      serialNumber: certificate.noCertificado,
      name: certificate.name,
      validFrom: certificate.validFrom.toISOString(),
      validTo: certificate.validTo.toISOString(),
      status: 'active',
      certificateDer: certificate.der,
      privateKeySealed: sealSecret(deps.masterKey, exportPrivateKey(privateKey), id),
      createdAt: stamp,
      updatedAt: stamp,
    });
    await bindIdempotency?.(tx, id);
  });
  return toCsd(await getCsdRow(deps, actor, id));
}

export async function listCsds(deps: CsdDeps, actor: Actor, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(csds)
    .where(and(scoped(actor), after ? gt(csds.id, after) : undefined))
    .orderBy(asc(csds.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toCsd);
}

export const getCsd = async (deps: CsdDeps, actor: Actor, id: string) => toCsd(await getCsdRow(deps, actor, id));

/** Makes this CSD the one that seals; the tenant's other active CSD in the environment becomes inactive. */
export async function activateCsd(deps: CsdDeps, actor: Actor, id: string) {
  const row = await getCsdRow(deps, actor, id);
  const now = deps.now();
  if (row.status === 'expired' || new Date(row.validTo) < now) {
    throw conflict('CSD expired', [{ field: 'id', issue: `expired on ${row.validTo}; upload a current CSD` }]);
  }
  // A test CSD stored in live before uploads refused it.
  if (actor.environment === 'live' && isTestCsd(row.certificateDer)) {
    throw conflict('A test CSD cannot sign live invoices', [{ field: 'id', issue: `certificate ${row.serialNumber} ${TEST_CSD_IN_LIVE}` }]);
  }
  const stamp = now.toISOString();
  // serializable: one active CSD, as for the upload
  await withTransaction(deps.db, { isolation: 'serializable', name: 'csds.activate' }, async (tx) => {
    await tx
      .update(csds)
      .set({ status: 'inactive', updatedAt: stamp })
      .where(and(scoped(actor), eq(csds.status, 'active'), ne(csds.id, id)));
    await tx.update(csds).set({ status: 'active', updatedAt: stamp }).where(eq(csds.id, id));
  });
  return getCsd(deps, actor, id);
}

export async function deactivateCsd(deps: CsdDeps, actor: Actor, id: string) {
  const row = await getCsdRow(deps, actor, id);
  if (row.status === 'expired') throw conflict('CSD expired', [{ field: 'id', issue: 'an expired CSD is already out of use' }]);
  await deps.db.update(csds).set({ status: 'inactive', updatedAt: deps.now().toISOString() }).where(eq(csds.id, row.id));
  return getCsd(deps, actor, id);
}

/** Deletes the certificate and its encrypted key. Invoices already sealed keep the certificate in their XML. */
export async function deleteCsd(deps: CsdDeps, actor: Actor, id: string) {
  const row = await getCsdRow(deps, actor, id);
  await deps.db.delete(csds).where(eq(csds.id, row.id));
  signerCache(deps.db).delete(row.id);
  return { id: row.id, deleted: true as const };
}

const signers = new WeakMap<Db, Map<string, CsdSigner>>();
function signerCache(db: Db) {
  let cache = signers.get(db);
  if (!cache) signers.set(db, (cache = new Map()));
  return cache;
}

/**
 * The tenant's active CSD, ready to seal, or undefined when it has none (in live, a test CSD is none). The decrypted KeyObject is cached per
 * certificate: decrypting and importing on every invoice would cost more than signing.
 */
export async function activeSigner(
  deps: Pick<CsdDeps, 'db' | 'now' | 'masterKey'>,
  tenantId: string,
  environment: Environment,
): Promise<CsdSigner | undefined> {
  // Prepared: every invoice asks.
  const activeId = prepared(deps.db, 'csds.active', (d) =>
    d
      .select({ id: csds.id })
      .from(csds)
      .where(and(eq(csds.tenantId, sql.placeholder('tenantId')), eq(csds.environment, sql.placeholder('environment')), eq(csds.status, 'active')))
      .prepare(),
  );
  const [active] = await activeId.execute({ tenantId, environment });
  if (!active) return undefined;
  const cache = signerCache(deps.db);
  let signer = cache.get(active.id);
  if (!signer) {
    const row = (
      await deps.db.select({ certificateDer: csds.certificateDer, privateKeySealed: csds.privateKeySealed }).from(csds).where(eq(csds.id, active.id))
    )[0]!;
    // Left active in live from before uploads refused test CSDs: never seals there (not cached, so rare rows cost little).
    if (environment === 'live' && isTestCsd(row.certificateDer)) return undefined;
    signer = createSigner(parseCertificate(row.certificateDer), importPrivateKey(openSecret(deps.masterKey, row.privateKeySealed, active.id)));
    cache.set(active.id, signer);
  }
  return signer;
}

/**
 * Daily: CSDs past valid_to become `expired` (event csd.vencido); those within 30 days of it get one
 * csd.por_vencer. Idempotent, so running it more than once a day changes nothing.
 */
export async function sweepCsdExpiry(db: Db, now: Date): Promise<{ expired: number; noticed: number }> {
  const stamp = now.toISOString();
  const soon = new Date(now.getTime() + EXPIRY_NOTICE_DAYS * 86_400_000).toISOString();
  // Idempotent, also with several instances sweeping at once: each update re-checks the state it changes and only a
  // row it changed gets its event, so a second sweep (the same day, or concurrent) sends no second notice.
  // read committed: each UPDATE re-checks the state it changes on the row's latest version; only a row it changed gets its event
  return withTransaction(db, { isolation: 'read committed', name: 'csds.expirySweep' }, async (tx) => {
    const expiring = await tx
      .update(csds)
      .set({ status: 'expired', updatedAt: stamp })
      .where(and(ne(csds.status, 'expired'), lte(csds.validTo, stamp)))
      .returning(swept);
    for (const c of expiring) await recordEvent(tx, { tenantId: c.tenantId, environment: c.environment, type: 'csd.vencido', data: eventData(c), now });
    const notice = await tx
      .update(csds)
      .set({ expiryNoticeAt: stamp })
      .where(and(ne(csds.status, 'expired'), isNull(csds.expiryNoticeAt), lte(csds.validTo, soon), gt(csds.validTo, stamp)))
      .returning(swept);
    for (const c of notice) await recordEvent(tx, { tenantId: c.tenantId, environment: c.environment, type: 'csd.por_vencer', data: eventData(c), now });
    return { expired: expiring.length, noticed: notice.length };
  });
}

/** What a sweep reads back of each CSD it changed: its event's fields (not the certificate and sealed key). */
const swept = {
  id: csds.id,
  tenantId: csds.tenantId,
  environment: csds.environment,
  rfc: csds.rfc,
  serialNumber: csds.serialNumber,
  validTo: csds.validTo,
};
const eventData = (c: Pick<CsdRow, 'id' | 'rfc' | 'serialNumber' | 'validTo'>) => ({
  csd_id: c.id,
  rfc: c.rfc,
  serial_number: c.serialNumber,
  valid_to: c.validTo,
});

const countWhere = (condition: SQL) => sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`.mapWith(Number);

/** GET /stats: the caller's CSDs, those active, and those active that expire within 30 days of `now`. */
export async function csdCounts(db: Db, actor: Actor, now: Date): Promise<{ total: number; activos: number; porVencer: number }> {
  const soon = new Date(now.getTime() + EXPIRY_NOTICE_DAYS * 86_400_000).toISOString();
  const [row] = await db
    .select({
      total: sql<number>`count(*)`.mapWith(Number),
      activos: countWhere(eq(csds.status, 'active')),
      porVencer: countWhere(and(eq(csds.status, 'active'), lte(csds.validTo, soon))!),
    })
    .from(csds)
    .where(scoped(actor));
  return row!;
}
