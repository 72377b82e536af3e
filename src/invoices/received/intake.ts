import { and, eq } from 'drizzle-orm';
import { type ReceivedValidation, validateReceived } from '../../cfdi/received/validate.ts';
import type { Db } from '../../db/client.ts';
import { uniqueViolation } from '../../db/engine.ts';
import { withTransaction } from '../../db/index.ts';
import { type Environment, receivedCfdis } from '../../db/schema/index.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { notFound } from '../../lib/service-error.ts';
import type { SatCertificateSource } from '../../pac/sat-certificates.ts';
import { isTestCsd, satAuthorities } from '../csds/authorities.ts';
import { recordEvent } from '../events.ts';
import { flagReceived69b } from './efos.ts';
import { reconcileInvoices, recordReconciliationLines } from './reconciliation.ts';

export interface ReceivedDeps {
  db: Db;
  now: () => Date;
  identity: Pick<IdentityDirectory, 'tenantById'>;
  /** SAT's stamping certificates by NoCertificadoSAT (src/pac/sat-certificates.ts). */
  satCertificates: SatCertificateSource;
}

export interface IntakeScope {
  tenantId: string;
  environment: Environment;
}

export interface IntakeOutcome {
  file: string;
  result: 'created' | 'duplicate' | 'invalid';
  id?: string;
  uuid?: string;
  /** Each failed check (`invalid`, `not_validated`) or why it is a duplicate. */
  reasons: { check: string; detail?: string }[];
}

/**
 * Validates and stores CFDIs someone issued to the tenant (issue 39), one outcome per file, in the files' order.
 * `created`: stored (validated, or a CFDI 3.3 stored `not_validated` saying why); `invalid`: stored too, its record
 * naming the failed checks; `duplicate`: the tenant already has that UUID in the environment, nothing is written (the
 * stored id is given, and the reasons say whether the bytes differ). A document without a UUID is never a duplicate.
 * Each stored row commits with its event (`received_cfdi.created` or `received_cfdi.invalid`). Validation runs
 * before the transaction (the schema check and a certificate lookup take time); the UUID is checked again inside it.
 */
export async function intakeReceived(
  deps: ReceivedDeps,
  scope: IntakeScope,
  files: { name: string; bytes: Uint8Array }[],
  source?: { satDownloadId: string },
): Promise<IntakeOutcome[]> {
  const tenant = await deps.identity.tenantById(scope.tenantId);
  if (!tenant) throw notFound('Tenant');
  const satCertificate = reachableCertificates(deps.satCertificates);
  const authorities = satAuthorities(scope.environment);
  const outcomes: IntakeOutcome[] = [];
  for (const file of files) {
    const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
    const lookups = satCertificate.session();
    const validated = await validateReceived(bytes, { receptorRfc: tenant.rfc, satCertificate: lookups.get, authorities });
    const v = withUnreachable(scope.environment === 'live' ? refuseTestCsd(validated, bytes) : validated, lookups.failure());
    const doc = { name: file.name, bytes, hash: sha256Hex(bytes), v };
    outcomes.push(await store(deps, scope, doc, source).catch((err) => retryAsDuplicate(err, () => store(deps, scope, doc, source))));
  }
  return outcomes;
}

/** A repository that could not be reached (timeout, 5xx) is not a missing certificate: the document is not validated. */
function reachableCertificates(source: SatCertificateSource) {
  return {
    session() {
      let failure: string | undefined;
      return {
        get: async (serial: string) => {
          try {
            return await source(serial);
          } catch (err) {
            failure = `SAT's certificate repository could not be reached for ${serial} (${err instanceof Error ? err.message : String(err)}); upload it again later`;
            return undefined;
          }
        },
        failure: () => failure,
      };
    },
  };
}

/**
 * In live, a document sealed with a test CSD (one SAT's test authorities issued) is no fiscal document, as a test CSD
 * is refused on upload in live (TEST_CSD_IN_LIVE): live's authorities are not bundled, so `checkIssuer` alone would
 * pass it. It fails `certificate_issuer` saying so.
 */
function refuseTestCsd(v: ReceivedValidation, bytes: Buffer): ReceivedValidation {
  const issuer = v.checks.find((c) => c.name === 'certificate_issuer');
  if (!issuer?.ok) return v;
  const certificado = /\sCertificado="([A-Za-z0-9+/=\s]+)"/.exec(bytes.toString('utf8'))?.[1];
  if (!certificado || !isTestCsd(Buffer.from(certificado, 'base64'))) return v;
  const detail = "the certificate is a test CSD (issued by SAT's test certification authorities), which seals no live CFDI";
  return { ...v, result: 'invalid', checks: v.checks.map((c) => (c === issuer ? { name: c.name, ok: false, detail } : c)) };
}

/**
 * PostgreSQL may answer a racing insert of the same UUID with the unique index's 23505 rather than a serialization
 * failure (its documentation says to expect either): run it again, and the read inside now finds the row.
 */
function retryAsDuplicate(err: unknown, again: () => Promise<IntakeOutcome>): Promise<IntakeOutcome> {
  if (uniqueViolation(err)?.table !== 'received_cfdis') throw err;
  return again();
}

function withUnreachable(v: ReceivedValidation, failure: string | undefined): ReceivedValidation {
  if (!failure) return v;
  const checks = v.checks.map((c) => (c.name === 'sat_certificate_found' ? { name: c.name, ok: false, detail: failure } : c));
  // Nothing else failed: the document may well be valid, we could not tell.
  const others = checks.filter((c) => !c.ok && c.name !== 'sat_certificate_found');
  return { ...v, checks, result: others.length === 0 ? 'not_validated' : 'invalid' };
}

async function store(
  deps: ReceivedDeps,
  scope: IntakeScope,
  doc: { name: string; bytes: Buffer; hash: string; v: ReceivedValidation },
  source: { satDownloadId: string } | undefined,
): Promise<IntakeOutcome> {
  const { v } = doc;
  const uuid = v.uuid?.toUpperCase();
  const failed = v.checks.filter((c) => !c.ok).map((c) => (c.detail === undefined ? { check: c.name } : { check: c.name, detail: c.detail }));
  const now = deps.now();
  const id = newId('rcv', now.getTime());
  // serializable: whether the UUID is stored already decides the insert (the partial unique index is the backstop)
  return withTransaction(deps.db, { isolation: 'serializable', name: 'received_cfdis.intake' }, async (tx) => {
    if (uuid) {
      const [stored] = await tx
        .select({ id: receivedCfdis.id, sha256: receivedCfdis.sha256 })
        .from(receivedCfdis)
        .where(and(eq(receivedCfdis.tenantId, scope.tenantId), eq(receivedCfdis.environment, scope.environment), eq(receivedCfdis.uuid, uuid)));
      if (stored) {
        const same = stored.sha256 === doc.hash;
        return {
          file: doc.name,
          result: 'duplicate',
          id: stored.id,
          uuid,
          reasons: [
            {
              check: 'duplicate',
              detail: same
                ? `UUID ${uuid} is stored already as ${stored.id}, with the same bytes`
                : `UUID ${uuid} is stored already as ${stored.id}, with other bytes (the stored document is kept)`,
            },
          ],
        };
      }
    }
    const at = now.toISOString();
    await tx.insert(receivedCfdis).values({
      id,
      tenantId: scope.tenantId,
      environment: scope.environment,
      uuid: uuid ?? null,
      sha256: doc.hash,
      xml: doc.bytes,
      version: v.version,
      validation: v.result,
      checks: v.checks,
      emisorRfc: v.emisorRfc ?? null,
      emisorNombre: v.emisorNombre ?? null,
      receptorRfc: v.receptorRfc ?? null,
      fecha: v.fecha ?? null,
      tipo: v.tipo ?? null,
      metodoPago: v.metodoPago ?? null,
      formaPago: v.formaPago ?? null,
      moneda: v.moneda ?? null,
      total: v.total ?? null,
      serie: v.serie ?? null,
      folio: v.folio ?? null,
      source: source ? 'sat_download' : 'upload',
      satDownloadId: source?.satDownloadId ?? null,
      createdAt: at,
      updatedAt: at,
    });
    const invalid = v.result === 'invalid';
    await recordEvent(tx, {
      tenantId: scope.tenantId,
      environment: scope.environment,
      type: invalid ? 'received_cfdi.invalid' : 'received_cfdi.created',
      data: {
        received_cfdi_id: id,
        uuid: uuid ?? null,
        emisor_rfc: v.emisorRfc ?? null,
        total: v.total ?? null,
        validation: v.result,
        failed_checks: failed.map((f) => f.check),
        source: source ? 'sat_download' : 'upload',
      },
      now,
    });
    // Reconciliation: an REP's or Egreso's lines, and the PPD invoices they (or this invoice) change.
    const affected = await recordReconciliationLines(tx, scope, {
      id,
      xml: doc.bytes,
      uuid: uuid ?? null,
      tipo: v.tipo ?? null,
      metodoPago: v.metodoPago ?? null,
    });
    await reconcileInvoices(tx, scope, affected);
    // Its issuer on the Lista 69-B the tenant consults: efos_69b, and received_cfdi.efos_listed when listed.
    if (v.emisorRfc) await flagReceived69b(tx, scope, now, [v.emisorRfc]);
    return { file: doc.name, result: invalid ? 'invalid' : 'created', id, ...(uuid ? { uuid } : {}), reasons: failed };
  });
}
