import type { SandboxSat } from './sandbox.ts';

/** SAT's public repository of the certificates it and the PACs stamp with (SAT_CERTIFICATES_URL's default). */
export const SAT_CERTIFICATES_URL = 'https://rdc.sat.gob.mx/rccf';
const TIMEOUT_MS = 10_000;
/** Serials kept in memory: SAT stamps with a handful of certificates, PACs with a few each. */
const MAX_CACHED = 1_000;
/** How long a serial the repository did not have is not asked again. */
const MISS_TTL_MS = 10 * 60_000;

/** The PAC's SAT stamping certificate (DER) by NoCertificadoSAT; undefined: the repository has none by that serial. */
export type SatCertificateSource = (noCertificadoSat: string) => Promise<Buffer | undefined>;

/** Where SAT keeps a serial: `<base>/<6>/<6>/<2>/<2>/<2>/<serial>.cer` (the serial's first 18 digits, cut so). */
function satCertificatePath(base: string, serial: string): string {
  const d = serial.slice(0, 18);
  return `${base.replace(/\/+$/, '')}/${d.slice(0, 6)}/${d.slice(6, 12)}/${d.slice(12, 14)}/${d.slice(14, 16)}/${d.slice(16, 18)}/${serial}.cer`;
}

/**
 * Looks stamping certificates up in SAT's repository, by serial, cached in memory (a certificate never changes under
 * its serial; a miss is remembered for ten minutes), one fetch per serial at a time. The sandbox's own stamping
 * certificate is known without a fetch in both modes: the sandbox stamps test CFDIs that another tenant may receive.
 * A network failure or a timeout is not a miss: it throws, and the caller reports the document as not checked.
 */
export function createSatCertificateSource(o: {
  baseUrl?: string;
  sandboxSat?: Pick<SandboxSat, 'noCertificado' | 'certificateDer'>;
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
}): SatCertificateSource {
  const base = o.baseUrl ?? SAT_CERTIFICATES_URL;
  const doFetch = o.fetch ?? fetch;
  const now = o.now ?? Date.now;
  const found = new Map<string, Buffer>();
  const missed = new Map<string, number>();
  const inFlight = new Map<string, Promise<Buffer | undefined>>();

  async function lookUp(serial: string): Promise<Buffer | undefined> {
    const res = await doFetch(satCertificatePath(base, serial), { signal: AbortSignal.timeout(o.timeoutMs ?? TIMEOUT_MS), redirect: 'follow' });
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`SAT's certificate repository answered ${res.status} for ${serial}`);
    }
    const body = Buffer.from(await res.arrayBuffer());
    // The repository serves DER; a PEM copy is accepted too.
    const pem = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(body.toString('latin1'));
    return pem ? Buffer.from(pem[1]!.replace(/\s+/g, ''), 'base64') : body;
  }

  return async (serial) => {
    if (o.sandboxSat && serial === o.sandboxSat.noCertificado) return o.sandboxSat.certificateDer;
    // SAT's serials are 20 digits: anything else is not in the repository, and is never put in a URL.
    if (!/^\d{20}$/.test(serial)) return undefined;
    const cached = found.get(serial);
    if (cached) return cached;
    const missAt = missed.get(serial);
    if (missAt !== undefined && now() - missAt < MISS_TTL_MS) return undefined;
    let pending = inFlight.get(serial);
    if (!pending) {
      pending = lookUp(serial).finally(() => inFlight.delete(serial));
      inFlight.set(serial, pending);
    }
    const der = await pending;
    if (der) {
      if (found.size >= MAX_CACHED) found.delete(found.keys().next().value!);
      found.set(serial, der);
      missed.delete(serial);
    } else {
      if (missed.size >= MAX_CACHED) missed.delete(missed.keys().next().value!);
      missed.set(serial, now());
    }
    return der;
  };
}
