import { sign } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { exportPrivateKey, importPrivateKey } from '../../cfdi/csd.ts';
import type { Db } from '../../db/client.ts';
import { withTransaction, type Tx } from '../../db/index.ts';
import { fiels, type Environment } from '../../db/schema/index.ts';
import { recordAuditEntry } from '../../lib/audit.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { newId } from '../../lib/ids.ts';
import { openSecret, sealSecret } from '../../lib/secret-box.ts';
import { conflict, notFound } from '../../lib/service-error.ts';
import type { RateLimiter, RateLimits } from '../../gateway/rate-limit.ts';
import { openCredential } from '../csds/credential.ts';
import { toFiel } from './schemas.ts';

export interface FielDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  identity: IdentityDirectory;
}

/** As for CSDs: each upload that tries the password derives a key; a taxpayer renews an e.firma every four years. */
export const FIEL_UPLOADS_PER_HOUR = 10;
export const createFielUploadLimiter = (rateLimits: RateLimits) => rateLimits('fiel-uploads', 3_600_000);

/** SAT tells the two apart by the certificate's key usage (src/cfdi/csd.ts, isCsd): a CSD only signs. */
const CSD_NOT_FIEL =
  'is a CSD (Certificado de Sello Digital), which seals invoices: Descarga Masiva authenticates with the e.firma (FIEL); upload the FIEL .cer and .key';
const TEST_FIEL_IN_LIVE =
  "is a test FIEL (issued by SAT's test certification authorities): SAT's live services refuse it; upload the e.firma SAT issued to you, or use a sk_test_ key";

async function rowOf(db: Db, tenantId: string) {
  return (await db.select().from(fiels).where(eq(fiels.tenantId, tenantId)))[0];
}

/**
 * Checks the e.firma as SAT issues it (a FIEL, not a CSD; valid now; SAT as issuer; the tenant's RFC; the password
 * opens the key and the key is the certificate's) and stores it as the tenant's, replacing the one before. `audit`
 * writes the request's audit row in the same transaction, saying whether it replaced one.
 */
export async function putFiel(
  deps: FielDeps & { uploads: RateLimiter },
  actor: Actor,
  input: { cer: File; key: File; password: string },
  options: { audit?: (tx: Tx, id: string, replaced: boolean) => Promise<void>; bindIdempotency?: IdempotencyClaim['bind'] } = {},
) {
  const { certificate, privateKey } = await openCredential(deps, actor, input, {
    kind: 'FIEL',
    otherKind: CSD_NOT_FIEL,
    testInLive: TEST_FIEL_IN_LIVE,
    uploads: {
      limiter: deps.uploads,
      key: actor.tenantId,
      limit: FIEL_UPLOADS_PER_HOUR,
      what: 'FIEL uploads that try a password per hour per tenant',
    },
  });
  const now = deps.now();
  const id = newId('fiel', now.getTime());
  // serializable: one FIEL per tenant, and whether it replaced one (the audit row) is read from the delete
  const replaced = await withTransaction(deps.db, { isolation: 'serializable', name: 'fiels.put' }, async (tx) => {
    const before = await tx.delete(fiels).where(eq(fiels.tenantId, actor.tenantId)).returning({ id: fiels.id });
    await tx.insert(fiels).values({
      id,
      tenantId: actor.tenantId,
      rfc: certificate.rfc,
      serialNumber: certificate.noCertificado,
      name: certificate.name,
      validFrom: certificate.validFrom.toISOString(),
      validTo: certificate.validTo.toISOString(),
      certificateDer: certificate.der,
      privateKeySealed: sealSecret(deps.masterKey, exportPrivateKey(privateKey), id),
      createdAt: now.toISOString(),
    });
    await options.bindIdempotency?.(tx, id);
    await options.audit?.(tx, id, before.length > 0);
    return before.length > 0;
  });
  return { fiel: await getFiel(deps, actor), replaced };
}

/** The tenant's FIEL certificate data (never the key); 404 when it has none. */
export async function getFiel(deps: Pick<FielDeps, 'db' | 'now'>, actor: Actor) {
  const row = await rowOf(deps.db, actor.tenantId);
  if (!row) throw notFound('FIEL');
  return toFiel(row, deps.now());
}

/**
 * Deletes the row: the encrypted key goes with it, nothing is kept. Idempotent, as a DELETE is: none stored is done
 * already (and another tenant's is never named, so there is nothing to tell apart).
 */
export async function deleteFiel(deps: Pick<FielDeps, 'db'>, actor: Actor, audit?: (tx: Tx, id: string) => Promise<void>) {
  // read committed: one delete
  await withTransaction(deps.db, { isolation: 'read committed', name: 'fiels.delete' }, async (tx) => {
    const [deleted] = await tx.delete(fiels).where(eq(fiels.tenantId, actor.tenantId)).returning({ id: fiels.id });
    if (deleted) await audit?.(tx, deleted.id);
  });
}

/** RSA PKCS#1 v1.5 digests XML-DSig asks for: rsa-sha1 (SAT's Descarga Masiva) and rsa-sha256. */
type FielDigest = 'sha1' | 'sha256';

/** The tenant's e.firma, opened for one purpose: what the Descarga Masiva client signs its requests with. */
export interface FielSigner {
  id: string;
  rfc: string;
  noCertificado: string;
  certificateDer: Buffer;
  validFrom: Date;
  validTo: Date;
  /** Base64 of the RSA PKCS#1 v1.5 signature of `data` with the digest; each call writes an audit row `fiel.used`. */
  sign(data: string | Buffer, digest: FielDigest): Promise<string>;
}

/**
 * Opens the tenant's FIEL for `purpose` (e.g. "descarga-masiva:autenticacion"). Every signature is a use and is
 * audited: action `fiel.used`, actor `system`, the purpose in `path`. Undefined when the tenant has none (off unless
 * uploaded); an expired one is refused, as SAT would. The environment is the caller's: test-mode work never reaches
 * SAT (its client sends it to the simulator), but its signatures are audited in the test log.
 */
export async function fielSigner(
  deps: Pick<FielDeps, 'db' | 'now' | 'masterKey'>,
  tenantId: string,
  use: { environment: Environment; purpose: string; requestId?: string },
): Promise<FielSigner | undefined> {
  const row = await rowOf(deps.db, tenantId);
  if (!row) return undefined;
  if (new Date(row.validTo) < deps.now()) {
    throw conflict('FIEL expired', [{ field: 'fiel', issue: `expired on ${row.validTo}; upload the renewed e.firma (PUT /fiel)` }]);
  }
  const privateKey = importPrivateKey(openSecret(deps.masterKey, row.privateKeySealed, row.id));
  return {
    id: row.id,
    rfc: row.rfc,
    noCertificado: row.serialNumber,
    certificateDer: row.certificateDer,
    validFrom: new Date(row.validFrom),
    validTo: new Date(row.validTo),
    async sign(data, digest) {
      await recordAuditEntry(deps.db, {
        tenantId,
        environment: use.environment,
        actorType: 'system',
        actorId: 'fiel',
        action: 'fiel.used',
        method: `SIGN ${digest.toUpperCase()}`,
        path: use.purpose,
        status: 200,
        resourceType: 'fiel',
        resourceId: row.id,
        requestId: use.requestId ?? 'none',
        createdAt: deps.now().toISOString(),
      });
      return sign(digest, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, privateKey).toString('base64');
    },
  };
}
