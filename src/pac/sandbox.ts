import forge from 'node-forge';
import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { tfdCadena, tfdNode, type Tfd } from '../cfdi/tfd.ts';
import { wallClock } from '../cfdi/time.ts';
import { serializeXml } from '../cfdi/xml.ts';
import type { Db } from '../db/client.ts';
import { settings } from '../db/schema/index.ts';
import { openSecret, sealSecret } from '../lib/secret-box.ts';
import type { Pac, StampOptions, StampResult } from './types.ts';

/** The sandbox's own "SAT" stamping identity: a self-signed certificate published at /sandbox/sat-certificate. */
export interface SandboxSat {
  certificateDer: Buffer;
  noCertificado: string;
  privateKey: KeyObject;
}

export const SANDBOX_NO_CERTIFICADO = '99001000000000000001';
export const SANDBOX_RFC_PROV_CERTIF = 'AAA010101AAA';

export function createSandboxSat(): SandboxSat {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string);
  cert.serialNumber = Buffer.from(SANDBOX_NO_CERTIFICADO, 'latin1').toString('hex');
  cert.validity.notBefore = new Date(Date.UTC(2024, 0, 1));
  cert.validity.notAfter = new Date(Date.UTC(2044, 0, 1));
  const subject = [
    { name: 'commonName', value: 'CFDI API SANDBOX SAT' },
    { name: 'organizationName', value: 'CFDI API SANDBOX (NO VALIDEZ FISCAL)' },
    { shortName: 'OU', value: 'Sandbox stamping' },
    { type: '2.5.4.45', value: SANDBOX_RFC_PROV_CERTIF },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, nonRepudiation: true }]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), forge.md.sha256.create());
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { certificateDer: der, noCertificado: SANDBOX_NO_CERTIFICADO, privateKey };
}

/** Created on first start and kept in the database (the key sealed under the master key), so stamps stay verifiable. */
export function loadOrCreateSandboxSat(db: Db, masterKey: Buffer): SandboxSat {
  const get = (key: string) => db.select().from(settings).where(eq(settings.key, key)).get()?.value;
  const cert = get('sandbox_sat_certificate');
  const key = get('sandbox_sat_key');
  if (cert && key) {
    return { certificateDer: cert, noCertificado: SANDBOX_NO_CERTIFICADO, privateKey: createPrivateKey({ key: openSecret(masterKey, key, 'sandbox_sat_key'), format: 'der', type: 'pkcs8' }) };
  }
  const fresh = createSandboxSat();
  db.transaction((tx) => {
    tx.insert(settings).values({ key: 'sandbox_sat_certificate', value: fresh.certificateDer }).onConflictDoNothing().run();
    tx.insert(settings)
      .values({ key: 'sandbox_sat_key', value: sealSecret(masterKey, fresh.privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer, 'sandbox_sat_key') })
      .onConflictDoNothing()
      .run();
  });
  return loadOrCreateSandboxSat(db, masterKey);
}

const SELLO = /<cfdi:Comprobante\b[^>]*?\sSello="([^"]*)"/;

/** The same sealed document always gets the same UUID, as a real PAC answers a duplicate with its earlier stamp. */
function uuidFromSello(sello: string): string {
  const h = createHash('sha256').update(sello).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`.toUpperCase();
}

/**
 * In-process PAC for test mode: the same output as a real stamp (TFD 1.1 with UUID, FechaTimbrado in central
 * Mexico time, SelloSAT over the TFD cadena), signed by the sandbox certificate instead of SAT's. Scenarios force
 * an outcome of one attempt: unavailable (retryable), rejected, or slower than the synchronous budget.
 */
export function createSandboxPac(sat: SandboxSat, now: () => Date = () => new Date(), slowMs = 6000): Pac {
  return {
    async stamp(sealedXml: string, options: StampOptions = {}): Promise<StampResult> {
      if (options.scenario === 'pac_unavailable') return { ok: false, retryable: true, message: 'sandbox: the provider is unavailable (X-Sandbox-Scenario)' };
      if (options.scenario === 'pac_rejected') return { ok: false, retryable: false, code: 'CFDI40999', message: 'sandbox: rejected by the provider (X-Sandbox-Scenario)' };
      if (options.scenario === 'pac_slow') await Bun.sleep(slowMs);
      const sello = SELLO.exec(sealedXml)?.[1];
      if (!sello) return { ok: false, retryable: false, code: '302', message: 'Sello mal formado o inválido' };
      if (sealedXml.includes('<tfd:TimbreFiscalDigital')) return { ok: false, retryable: false, code: '307', message: 'El CFDI contiene un timbre previo' };
      const base = {
        uuid: uuidFromSello(sello),
        fechaTimbrado: wallClock(now(), 'America/Mexico_City'),
        rfcProvCertif: SANDBOX_RFC_PROV_CERTIF,
        selloCfd: sello,
        noCertificadoSat: sat.noCertificado,
      };
      const tfd: Tfd = { ...base, selloSat: sign('sha256', Buffer.from(tfdCadena(base), 'utf8'), sat.privateKey).toString('base64') };
      const tfdXml = serializeXml(tfdNode(tfd)).replace(/^<\?xml[^>]*>\n/, '');
      const xml = sealedXml.includes('</cfdi:Complemento>')
        ? sealedXml.replace(/<\/cfdi:Complemento>(?![\s\S]*<\/cfdi:Complemento>)/, `${tfdXml}</cfdi:Complemento>`)
        : sealedXml.replace(/<\/cfdi:Comprobante>\s*$/, `<cfdi:Complemento>${tfdXml}</cfdi:Complemento></cfdi:Comprobante>`);
      return { ok: true, xml, tfd };
    },
  };
}
