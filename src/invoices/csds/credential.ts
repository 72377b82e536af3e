import type { KeyObject } from 'node:crypto';
import { checkIssuer, CsdError, openPrivateKey, parseCertificate, type CertificateInfo } from '../../cfdi/csd.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import type { RateLimiter } from '../../gateway/rate-limit.ts';
import { invalidInput, notFound, ServiceError } from '../../lib/service-error.ts';
import { isTestCsd, satAuthorities } from './authorities.ts';
import { MAX_CSD_FILE_BYTES } from './schemas.ts';

/**
 * What a CSD upload and a FIEL upload share: SAT's .cer, .key and password checked in one order (the kind, the dates,
 * SAT as issuer, the tenant's RFC, then the password, the only costly step). Each caller names what it expects and
 * the message that refuses the other kind.
 */
export interface CredentialRules {
  kind: 'CSD' | 'FIEL';
  /** The refusal of a certificate of the other kind, naming what to upload instead. */
  otherKind: string;
  /** In live, the refusal of a certificate SAT's test authorities issued. */
  testInLive: string;
  /** The password tries a caller may make in a clock hour (each derives a key); `what` says what is counted and per whom. */
  uploads: { limiter: RateLimiter; key: string; limit: number; what: string };
}

export interface OpenedCredential {
  certificate: CertificateInfo;
  privateKey: KeyObject;
}

async function readUpload(file: File, field: 'cer' | 'key'): Promise<Buffer> {
  if (file.size > MAX_CSD_FILE_BYTES) {
    throw new ServiceError('too_large', 'File too large', [{ field, issue: `must be at most ${MAX_CSD_FILE_BYTES} bytes (SAT files are about 1.5 KiB)` }]);
  }
  return Buffer.from(await file.arrayBuffer());
}

/** Checks an uploaded certificate and key as SAT issues them to the tenant; a refusal is invalid input naming the field. */
export async function openCredential(
  deps: { now: () => Date; identity: IdentityDirectory },
  actor: Actor,
  input: { cer: File; key: File; password: string },
  rules: CredentialRules,
): Promise<OpenedCredential> {
  const now = deps.now();
  const [cerBytes, keyBytes] = [await readUpload(input.cer, 'cer'), await readUpload(input.key, 'key')];
  try {
    const certificate = parseCertificate(cerBytes);
    if (certificate.kind !== rules.kind) throw new CsdError('cer', rules.otherKind);
    if (now > certificate.validTo) {
      throw new CsdError('cer', `expired on ${certificate.validTo.toISOString()} (valid from ${certificate.validFrom.toISOString()})`);
    }
    if (now < certificate.validFrom) throw new CsdError('cer', `is not valid until ${certificate.validFrom.toISOString()}`);
    // After the dates, so an expired certificate of an authority no longer bundled is still reported as expired.
    checkIssuer(certificate, satAuthorities(actor.environment));
    if (actor.environment === 'live' && isTestCsd(certificate.der)) throw new CsdError('cer', rules.testInLive);
    const tenant = await deps.identity.tenantById(actor.tenantId);
    if (!tenant) throw notFound('Tenant');
    if (certificate.rfc !== tenant.rfc) {
      throw new CsdError('cer', `belongs to RFC ${certificate.rfc}, not to this tenant's RFC ${tenant.rfc}`);
    }
    const { limiter, key, limit, what } = rules.uploads;
    const [rate] = await limiter.hit([{ key, limit }]);
    if (!rate!.allowed) {
      const issue = `at most ${limit} ${what}; retry in ${rate!.retryAfter} seconds`;
      throw new ServiceError('too_many', `Too many ${rules.kind} uploads`, [{ field: 'rate_limit', issue }], rate!.retryAfter);
    }
    return { certificate, privateKey: openPrivateKey(keyBytes, input.password, certificate) };
  } catch (err) {
    if (err instanceof CsdError) throw invalidInput(`Invalid ${rules.kind}`, [{ field: err.field, issue: err.message }]);
    throw err;
  }
}
