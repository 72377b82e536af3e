import forge from 'node-forge';
import { createPrivateKey, createPublicKey, sign, X509Certificate, type KeyObject } from 'node:crypto';

/** Why a certificate or key cannot be used, with the multipart field it concerns. */
export class CsdError extends Error {
  constructor(
    readonly field: 'cer' | 'key' | 'password',
    message: string,
  ) {
    super(message);
  }
}

export interface CertificateInfo {
  der: Buffer;
  /** The taxpayer's RFC (x500UniqueIdentifier before " / "). */
  rfc: string;
  /** NoCertificado: the serial number read as ASCII (20 digits). */
  noCertificado: string;
  /** Registered name as in the certificate (with the corporate suffix). */
  name: string;
  validFrom: Date;
  validTo: Date;
  kind: 'CSD' | 'FIEL';
  /** The issuer's organization (O): SAT's authorities name "SERVICIO DE ADMINISTRACION TRIBUTARIA". */
  issuerOrganization: string;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/;
const PEM_KEY = /-----BEGIN (?:ENCRYPTED )?PRIVATE KEY-----([\s\S]+?)-----END (?:ENCRYPTED )?PRIVATE KEY-----/;

const fromPem = (bytes: Buffer, pattern: RegExp): Buffer => {
  const match = pattern.exec(bytes.toString('latin1'));
  return match ? Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64') : bytes;
};

/** Reads a SAT certificate (.cer, DER or PEM): RFC, NoCertificado, validity and whether it is a CSD or a FIEL. */
export function parseCertificate(bytes: Buffer): CertificateInfo {
  if (bytes.length === 0) throw new CsdError('cer', 'is empty');
  const der = fromPem(bytes, PEM_CERT);
  let cert: forge.pki.Certificate;
  try {
    cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
  } catch {
    throw new CsdError('cer', 'is not an X.509 certificate (.cer, DER or PEM)');
  }
  const attr = (key: string, of: forge.pki.Certificate['subject'] = cert.subject) => {
    const a = of.attributes.find((x) => x.type === key || x.shortName === key || x.name === key);
    if (!a || typeof a.value !== 'string') return undefined;
    // UTF8String values come back as UTF-8 bytes; other string types (T61, Printable) are Latin-1 already.
    return (a.valueTagClass as number) === forge.asn1.Type.UTF8 ? forge.util.decodeUtf8(a.value) : a.value;
  };
  const uniqueId = attr('2.5.4.45');
  if (!uniqueId) throw new CsdError('cer', 'is not a SAT certificate: it has no RFC (x500UniqueIdentifier)');
  const rfc = uniqueId.split('/')[0]!.trim().toUpperCase();
  const serialHex = cert.serialNumber.length % 2 ? `0${cert.serialNumber}` : cert.serialNumber;
  const noCertificado = Buffer.from(serialHex, 'hex').toString('latin1');
  if (!/^[0-9]{20}$/.test(noCertificado)) throw new CsdError('cer', 'is not a SAT certificate: its serial is not a 20-digit NoCertificado');
  return {
    der,
    rfc,
    noCertificado,
    name: attr('CN') ?? attr('O') ?? '',
    validFrom: cert.validity.notBefore,
    validTo: cert.validity.notAfter,
    kind: isCsd(cert) ? 'CSD' : 'FIEL',
    issuerOrganization: attr('O', cert.issuer) ?? '',
  };
}

/** Certification authorities a CSD must chain to, each a DER certificate; `name` says which in a refusal. */
export interface CertificationAuthorities {
  name: string;
  certificates: readonly X509Certificate[];
}

const SAT_ORGANIZATION = 'SERVICIO DE ADMINISTRACION TRIBUTARIA';
/** Upper case without accents: SAT's older authorities write "Servicio de Administración Tributaria". */
const withoutAccents = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase().trim();

/**
 * A CSD comes from SAT: never self-signed, its issuer's organization is SAT and, when `authorities` lists any, it
 * chains through them to a self-signed root, every signature verified by node:crypto.
 */
export function checkIssuer(certificate: CertificateInfo, authorities: CertificationAuthorities): void {
  const cert = new X509Certificate(certificate.der);
  if (cert.issuer === cert.subject) throw new CsdError('cer', 'is self-signed: a CSD is issued by SAT (Servicio de Administración Tributaria)');
  if (withoutAccents(certificate.issuerOrganization) !== SAT_ORGANIZATION) {
    throw new CsdError('cer', `is issued by "${certificate.issuerOrganization}", not by SAT (Servicio de Administración Tributaria)`);
  }
  if (authorities.certificates.length === 0) return;
  const chain = chainOf(cert, authorities);
  if (chain === 'no issuer') throw new CsdError('cer', `is not issued by ${authorities.name}: its issuer's signature does not verify against them`);
  if (chain === 'no root') throw new CsdError('cer', `does not chain to a root of ${authorities.name}`);
}

/** Whether the certificate chains through `authorities` to a self-signed root of theirs, every signature verified. */
export const chainsTo = (der: Buffer, authorities: CertificationAuthorities): boolean =>
  authorities.certificates.length > 0 && chainOf(new X509Certificate(der), authorities) === 'root';

function chainOf(leaf: X509Certificate, authorities: CertificationAuthorities): 'root' | 'no issuer' | 'no root' {
  let cert = leaf;
  for (let depth = 0; depth < authorities.certificates.length; depth++) {
    const issuer = authorities.certificates.find((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
    if (!issuer) return 'no issuer';
    if (issuer.issuer === issuer.subject) return 'root';
    cert = issuer;
  }
  return 'no root';
}

/**
 * SAT tells a CSD from a FIEL (e.firma) by what the key may do (docs/decisions.md, "FIEL custody"): a CSD only signs
 * (digitalSignature + nonRepudiation, no extended key usage); a FIEL also enciphers and agrees keys and has e-mail
 * and client authentication. The subject's OU (the branch a CSD names) is not decisive: the taxpayer picks it.
 */
function isCsd(cert: forge.pki.Certificate): boolean {
  const keyUsage = cert.getExtension('keyUsage') as { digitalSignature?: boolean; dataEncipherment?: boolean; keyAgreement?: boolean } | null;
  const extKeyUsage = cert.getExtension('extKeyUsage');
  return !!keyUsage?.digitalSignature && !extKeyUsage && !keyUsage.dataEncipherment && !keyUsage.keyAgreement;
}

/** SAT's `.key` files: PBES2 with PBKDF2 (HMAC-SHA1) at 2,048 iterations and DES-EDE3-CBC. */
const SAT_PBKDF2_ITERATIONS = 2048;
/**
 * Opening a key runs PBKDF2 synchronously on the event loop, so its cost is bounded here: 100,000 iterations (about
 * 25 ms; 50 times SAT's count, room for keys re-encrypted by other tools) instead of whatever the file asks for.
 */
export const MAX_PBKDF2_ITERATIONS = 100_000;

const PBES2 = '1.2.840.113549.1.5.13';
const PBKDF2 = '1.2.840.113549.1.5.12';
const HMAC_SHA1 = '1.2.840.113549.2.7';
const PRFS: Record<string, string> = { [HMAC_SHA1]: 'HMAC-SHA1', '1.2.840.113549.2.9': 'HMAC-SHA256' };
const CIPHERS: Record<string, { name: string; keyBytes: number }> = {
  '1.2.840.113549.3.7': { name: 'DES-EDE3-CBC', keyBytes: 24 },
  '2.16.840.1.101.3.4.1.2': { name: 'AES-128-CBC', keyBytes: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'AES-192-CBC', keyBytes: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'AES-256-CBC', keyBytes: 32 },
};
const ACCEPTED_ENCRYPTION =
  "SAT's keys use PBES2 (PBKDF2 with HMAC-SHA1, DES-EDE3-CBC); accepted are PBES2 with PBKDF2 (HMAC-SHA1 or HMAC-SHA256) and DES-EDE3-CBC or AES-128/192/256-CBC";

// forge.asn1.validate templates (RFC 5208 EncryptedPrivateKeyInfo, RFC 8018 PBES2 and PBKDF2 parameters): each level's
// algorithm is captured with its parameters left open, so an unknown algorithm is named rather than called malformed.
const { Class, Type } = forge.asn1;
type Template = Record<string, unknown>;
const primitive = (name: string, type: number, extra: Template = {}): Template => ({ name, tagClass: Class.UNIVERSAL, type, constructed: false, ...extra });
const sequence = (name: string, value: Template[], extra: Template = {}): Template => ({
  name,
  tagClass: Class.UNIVERSAL,
  type: Type.SEQUENCE,
  constructed: true,
  value,
  ...extra,
});
const algorithmIdentifier = (name: string, capture: string, extra: Template = {}) =>
  sequence(
    name,
    [primitive(`${name}.algorithm`, Type.OID, { capture }), { name: `${name}.parameters`, optional: true, captureAsn1: `${capture}Params` }],
    extra,
  );
const ENCRYPTED_PRIVATE_KEY_INFO = sequence('EncryptedPrivateKeyInfo', [
  algorithmIdentifier('encryptionAlgorithm', 'scheme'),
  primitive('encryptedData', Type.OCTETSTRING),
]);
const PBES2_PARAMS = sequence('PBES2-params', [algorithmIdentifier('keyDerivationFunc', 'kdf'), algorithmIdentifier('encryptionScheme', 'cipher')]);
const PBKDF2_PARAMS = sequence('PBKDF2-params', [
  primitive('salt', Type.OCTETSTRING),
  primitive('iterationCount', Type.INTEGER, { capture: 'iterations' }),
  primitive('keyLength', Type.INTEGER, { optional: true, capture: 'keyLength' }),
  algorithmIdentifier('prf', 'prf', { optional: true }),
]);

// forge.asn1.validate is public API that @types/node-forge does not declare.
declare module 'node-forge' {
  namespace asn1 {
    function validate(node: unknown, template: Record<string, unknown>, capture: object, errors: string[]): boolean;
  }
}
const validate = (node: unknown, template: Template, capture: object) => node !== undefined && forge.asn1.validate(node, template, capture, []);
/** A DER INTEGER's content octets (two's complement) as a bigint; negative when the first bit is set. */
const derInteger = (bytes: string): bigint => {
  if (bytes.length === 0) return -1n;
  const value = BigInt(`0x${forge.util.bytesToHex(bytes)}`);
  return bytes.charCodeAt(0) & 0x80 ? value - (1n << BigInt(bytes.length * 8)) : value;
};
const algorithmName = (oidBytes: string) => {
  const oid = forge.asn1.derToOid(oidBytes);
  const name = (forge.pki.oids as Record<string, string>)[oid];
  return name ? `${name} (${oid})` : oid;
};

/** What the templates above capture: byte strings, and parameter nodes that only go back to validate. */
interface KeyEncryptionFields {
  scheme: string;
  schemeParams: unknown;
  kdf: string;
  kdfParams: unknown;
  cipher: string;
  iterations: string;
  keyLength?: string;
  prf?: string;
}

/**
 * Reads how the key is encrypted before anything is derived from the password: an algorithm outside the allow-list
 * or more PBKDF2 iterations than MAX_PBKDF2_ITERATIONS is refused at once, without running the key derivation.
 */
function checkKeyEncryption(encryptedKeyInfo: forge.asn1.Asn1): void {
  const malformed = (what: string) => new CsdError('key', `has a malformed encryption header (${what}): it is not a key as SAT issues them`);
  const refused = (what: string) => new CsdError('key', `is encrypted with ${what}, which is not accepted: ${ACCEPTED_ENCRYPTION}`);
  const found = {} as KeyEncryptionFields;
  if (!validate(encryptedKeyInfo, ENCRYPTED_PRIVATE_KEY_INFO, found)) throw new CsdError('key', 'is not an encrypted PKCS#8 private key (.key from SAT)');
  if (forge.asn1.derToOid(found.scheme) !== PBES2) throw refused(algorithmName(found.scheme));
  if (!validate(found.schemeParams, PBES2_PARAMS, found)) throw malformed('PBES2 parameters');
  if (forge.asn1.derToOid(found.kdf) !== PBKDF2) throw refused(`the key derivation ${algorithmName(found.kdf)}`);
  const cipher = CIPHERS[forge.asn1.derToOid(found.cipher)];
  if (!cipher) throw refused(`the cipher ${algorithmName(found.cipher)}`);
  if (!validate(found.kdfParams, PBKDF2_PARAMS, found)) throw malformed('PBKDF2 parameters');
  const prf = found.prf === undefined ? HMAC_SHA1 : forge.asn1.derToOid(found.prf);
  if (!PRFS[prf]) throw refused(`the PBKDF2 pseudo-random function ${algorithmName(found.prf!)}`);
  if (found.keyLength !== undefined && derInteger(found.keyLength) !== BigInt(cipher.keyBytes)) {
    throw malformed(`PBKDF2 asks for a ${derInteger(found.keyLength)}-byte key; ${cipher.name} takes ${cipher.keyBytes}`);
  }
  const iterations = derInteger(found.iterations);
  if (iterations < 1n) throw malformed(`an iteration count of ${iterations}`);
  if (iterations > BigInt(MAX_PBKDF2_ITERATIONS)) {
    throw new CsdError(
      'key',
      `the key's encryption asks for ${iterations} PBKDF2 iterations; SAT's keys use ${SAT_PBKDF2_ITERATIONS}; at most ${MAX_PBKDF2_ITERATIONS} are accepted`,
    );
  }
}

/** Opens the encrypted PKCS#8 `.key` (DER or PEM) with its password and checks it belongs to the certificate. */
export function openPrivateKey(keyBytes: Buffer, password: string, certificate: CertificateInfo): KeyObject {
  if (keyBytes.length === 0) throw new CsdError('key', 'is empty');
  const der = fromPem(keyBytes, PEM_KEY);
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  } catch {
    throw new CsdError('key', 'is not a private key file (.key, PKCS#8 DER or PEM)');
  }
  checkKeyEncryption(asn1);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8', passphrase: password });
  } catch {
    throw new CsdError('password', 'does not open the private key');
  }
  if (!new X509Certificate(certificate.der).checkPrivateKey(key)) {
    throw new CsdError('key', 'does not belong to the certificate (it is the key of another certificate)');
  }
  return key;
}

/** What the CFDI engine needs from a loaded CSD. */
export interface CsdSigner {
  rfc: string;
  noCertificado: string;
  /** The `Certificado` attribute: base64 of the DER certificate, no line breaks. */
  certificadoBase64: string;
  /** `Sello`: RSA PKCS#1 v1.5 + SHA-256 over the UTF-8 cadena, base64 (rsaSha256). */
  sign(cadena: string): Promise<string>;
  validAt(date: Date): boolean;
  /** For XML-DSig documents signed with the CSD (cancellation requests). */
  signingKey: { privateKey: KeyObject; certificateDer: Buffer };
}

export function createSigner(certificate: CertificateInfo, privateKey: KeyObject): CsdSigner {
  return {
    rfc: certificate.rfc,
    noCertificado: certificate.noCertificado,
    certificadoBase64: certificate.der.toString('base64'),
    sign: rsaSha256(privateKey),
    validAt: (date) => date >= certificate.validFrom && date <= certificate.validTo,
    signingKey: { privateKey, certificateDer: certificate.der },
  };
}

/**
 * RSA PKCS#1 v1.5 with SHA-256 over the UTF-8 text, base64: SAT's Sello and SelloSAT. On Bun's WebCrypto, which signs
 * on a pool of threads: the event loop goes on meanwhile, and the signatures of several invoices use several cores
 * (node:crypto's sign holds the thread). The scheme is deterministic, so the bytes are node:crypto's. A key WebCrypto
 * does not import is signed with node:crypto.
 */
export function rsaSha256(privateKey: KeyObject): (text: string) => Promise<string> {
  let imported: Promise<CryptoKey | undefined> | undefined;
  return async (text) => {
    imported ??= crypto.subtle
      .importKey('pkcs8', privateKey.export({ format: 'der', type: 'pkcs8' }), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign'])
      .catch(() => undefined);
    const key = await imported;
    const data = Buffer.from(text, 'utf8');
    return (key ? Buffer.from(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, data)) : sign('sha256', data, privateKey)).toString('base64');
  };
}

/** The certificate's public key, for verifying seals. */
export const publicKeyOf = (certificateDer: Buffer): KeyObject =>
  createPublicKey(new X509Certificate(certificateDer).publicKey.export({ type: 'spki', format: 'pem' }));

/** The decrypted private key as unencrypted PKCS#8 DER: what we store, encrypted under the master key. */
export const exportPrivateKey = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'pkcs8' }) as Buffer;

export const importPrivateKey = (pkcs8Der: Buffer): KeyObject => createPrivateKey({ key: pkcs8Der, format: 'der', type: 'pkcs8' });
