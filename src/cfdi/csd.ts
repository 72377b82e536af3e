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
  const attr = (key: string) => {
    const a = cert.subject.attributes.find((x) => x.type === key || x.shortName === key || x.name === key);
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
  };
}

/**
 * A CSD has a branch in the subject OU, signs only (digitalSignature + nonRepudiation) and has no extended key
 * usage; a FIEL (e.firma) has no OU and adds data encipherment, key agreement, e-mail and client authentication.
 */
function isCsd(cert: forge.pki.Certificate): boolean {
  const hasOu = cert.subject.attributes.some((a) => a.shortName === 'OU');
  const keyUsage = cert.getExtension('keyUsage') as { dataEncipherment?: boolean; keyAgreement?: boolean } | null;
  const extKeyUsage = cert.getExtension('extKeyUsage');
  return hasOu && !extKeyUsage && !keyUsage?.dataEncipherment && !keyUsage?.keyAgreement;
}

/** Opens the encrypted PKCS#8 `.key` (DER or PEM) with its password and checks it belongs to the certificate. */
export function openPrivateKey(keyBytes: Buffer, password: string, certificate: CertificateInfo): KeyObject {
  if (keyBytes.length === 0) throw new CsdError('key', 'is empty');
  const der = fromPem(keyBytes, PEM_KEY);
  let encrypted = false;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
    // EncryptedPrivateKeyInfo = SEQUENCE { AlgorithmIdentifier SEQUENCE, encryptedData OCTET STRING }.
    const parts = asn1.value as forge.asn1.Asn1[];
    encrypted = parts.length === 2 && parts[0]!.type === forge.asn1.Type.SEQUENCE && parts[1]!.type === forge.asn1.Type.OCTETSTRING;
  } catch {
    throw new CsdError('key', 'is not a private key file (.key, PKCS#8 DER or PEM)');
  }
  if (!encrypted) throw new CsdError('key', 'is not an encrypted PKCS#8 private key (.key from SAT)');
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
  /** `Sello`: RSA PKCS#1 v1.5 + SHA-256 over the UTF-8 cadena, base64. */
  sign(cadena: string): string;
  validAt(date: Date): boolean;
  /** For XML-DSig documents signed with the CSD (cancellation requests). */
  signingKey: { privateKey: KeyObject; certificateDer: Buffer };
}

export function createSigner(certificate: CertificateInfo, privateKey: KeyObject): CsdSigner {
  return {
    rfc: certificate.rfc,
    noCertificado: certificate.noCertificado,
    certificadoBase64: certificate.der.toString('base64'),
    sign: (cadena) => sign('sha256', Buffer.from(cadena, 'utf8'), privateKey).toString('base64'),
    validAt: (date) => date >= certificate.validFrom && date <= certificate.validTo,
    signingKey: { privateKey, certificateDer: certificate.der },
  };
}

/** The certificate's public key, for verifying seals. */
export const publicKeyOf = (certificateDer: Buffer): KeyObject => createPublicKey(new X509Certificate(certificateDer).publicKey.export({ type: 'spki', format: 'pem' }));

/** The decrypted private key as unencrypted PKCS#8 DER: what we store, encrypted under the master key. */
export const exportPrivateKey = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'pkcs8' }) as Buffer;

export const importPrivateKey = (pkcs8Der: Buffer): KeyObject => createPrivateKey({ key: pkcs8Der, format: 'der', type: 'pkcs8' });
