import forge from 'node-forge';
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { signEnveloped, type CancellationFacts, type SatStatus } from '../cfdi/cancellation.ts';
import { rsaSha256 } from '../cfdi/csd.ts';
import { withTfd } from '../cfdi/retenciones/tfd.ts';
import { Dec } from '../cfdi/decimal.ts';
import { tfdCadena, tfdNode, type Tfd } from '../cfdi/tfd.ts';
import { wallClock } from '../cfdi/time.ts';
import { serializeXml } from '../cfdi/xml.ts';
import type { Db } from '../db/client.ts';
import { retenciones, sandboxCancellations } from '../db/schema/index.ts';
import { addSetting, readSetting } from '../db/settings.ts';
import { openSecret, sealSecret } from '../lib/secret-box.ts';
import type {
  CancelRequest,
  CancelResult,
  CancelScenario,
  CfdiQuery,
  Pac,
  RetencionCancelRequest,
  RetencionSatStatus,
  RetencionStatusResult,
  StampOptions,
  StampResult,
} from './types.ts';
import { documentKindOf, selloOf } from './stamped-reply.ts';
import { withTransaction } from '../db/index.ts';

/** The sandbox's own "SAT" stamping identity: a self-signed certificate published at /sandbox/sat-certificate. */
export interface SandboxSat {
  certificateDer: Buffer;
  noCertificado: string;
  privateKey: KeyObject;
}

const SANDBOX_NO_CERTIFICADO = '99001000000000000001';
const SANDBOX_RFC_PROV_CERTIF = 'AAA010101AAA';

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
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), forge.md.sha256.create());
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { certificateDer: der, noCertificado: SANDBOX_NO_CERTIFICADO, privateKey };
}

/**
 * Created on first start and kept in the database (the key sealed under the master key), so stamps stay verifiable.
 * `created`: this call made it (run under the boot lock, src/boot.ts, only one instance ever does).
 */
export async function loadOrCreateSandboxSat(db: Db, masterKey: Buffer): Promise<{ sandboxSat: SandboxSat; created: boolean }> {
  const stored = await loadSandboxSat(db, masterKey);
  if (stored) return { sandboxSat: stored, created: false };
  const fresh = createSandboxSat();
  // read committed: under the boot lock; the settings' primary key refuses a second identity (read back after)
  await withTransaction(db, { isolation: 'read committed', name: 'sandbox.identity' }, async (tx) => {
    await addSetting(tx, 'sandbox_sat_certificate', fresh.certificateDer);
    await addSetting(tx, 'sandbox_sat_key', sealSecret(masterKey, fresh.privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer, 'sandbox_sat_key'));
  });
  // Read back: without the boot lock another instance's identity may have won, and every stamp must use that one.
  return { sandboxSat: (await loadSandboxSat(db, masterKey))!, created: true };
}

async function loadSandboxSat(db: Db, masterKey: Buffer): Promise<SandboxSat | undefined> {
  const cert = await readSetting(db, 'sandbox_sat_certificate');
  const key = await readSetting(db, 'sandbox_sat_key');
  if (!cert || !key) return undefined;
  return {
    certificateDer: cert,
    noCertificado: SANDBOX_NO_CERTIFICADO,
    privateKey: createPrivateKey({ key: openSecret(masterKey, key, 'sandbox_sat_key'), format: 'der', type: 'pkcs8' }),
  };
}

/**
 * The same sealed document of the same tenant always gets the same UUID, as a real PAC answers a duplicate with its
 * earlier stamp; two tenants sending the same document (SAT's public test CSD, same invoice, same second) do not.
 */
function sandboxUuid(tenantId: string, sello: string): string {
  const h = createHash('sha256').update(`${tenantId}\n${sello}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`.toUpperCase();
}

/** The sandbox also plays SAT's verification page for Retenciones, which no PAC serves (src/pac/sat-retenciones.ts in live mode). */
interface SandboxPac extends Pac {
  retencionStatus(tenantId: string, uuid: string): Promise<RetencionStatusResult>;
}

/**
 * In-process PAC for test mode: the same output as a real stamp (TFD 1.1 with UUID, FechaTimbrado in central
 * Mexico time, SelloSAT over the TFD cadena), signed by the sandbox certificate instead of SAT's. Scenarios force
 * an outcome of one attempt: unavailable (retryable), rejected, or slower than the synchronous budget.
 */
export function createSandboxPac(sat: SandboxSat, now: () => Date = () => new Date(), slowMs = 6000, sandboxSat?: SandboxSatRegistry): SandboxPac {
  const unavailable = { ok: false as const, retryable: false as const, code: '999', message: 'sandbox: this simulator was created without a SAT registry' };
  const selloSat = rsaSha256(sat.privateKey);
  return {
    name: 'sandbox',
    inProcess: true,
    cancel: async (request, options) => (sandboxSat ? simulateCancel(sat, sandboxSat, now(), request, options?.scenario) : unavailable),
    status: async (query) =>
      sandboxSat
        ? { ok: true, status: await simulateStatus(sandboxSat, await sandboxSat.find(query.uuid), now(), query) }
        : { ok: false, retryable: true, message: unavailable.message },
    cancelRetencion: async (request) => (sandboxSat ? simulateRetencionCancel(sat, sandboxSat.db, now(), request) : unavailable),
    retencionStatus: async (tenantId, uuid) =>
      sandboxSat
        ? { ok: true, status: await simulateRetencionStatus(sandboxSat.db, tenantId, uuid) }
        : { ok: false, retryable: true, message: unavailable.message },
    async stamp(sealedXml: string, options: StampOptions): Promise<StampResult> {
      if (options.scenario === 'pac_unavailable') return { ok: false, class: 'provider', message: 'sandbox: the provider is unavailable (X-Sandbox-Scenario)' };
      if (options.scenario === 'pac_rejected')
        return { ok: false, class: 'definitive', code: 'CFDI40999', message: 'sandbox: rejected by the provider (X-Sandbox-Scenario)' };
      if (options.scenario === 'pac_slow') await Bun.sleep(slowMs);
      // A CFDI de Retenciones gets the same TFD, in its own retenciones:Complemento.
      const retencion = documentKindOf(sealedXml) === 'retencion';
      const sello = selloOf(sealedXml);
      if (!sello) return { ok: false, class: 'definitive', code: '302', message: 'Sello mal formado o inválido' };
      if (sealedXml.includes('<tfd:TimbreFiscalDigital')) return { ok: false, class: 'definitive', code: '307', message: 'El CFDI contiene un timbre previo' };
      const base = {
        uuid: sandboxUuid(options.tenantId, sello),
        fechaTimbrado: wallClock(now(), 'America/Mexico_City'),
        rfcProvCertif: SANDBOX_RFC_PROV_CERTIF,
        selloCfd: sello,
        noCertificadoSat: sat.noCertificado,
      };
      const tfd: Tfd = { ...base, selloSat: await selloSat(tfdCadena(base)) };
      const tfdXml = serializeXml(tfdNode(tfd)).replace(/^<\?xml[^>]*>\n/, '');
      const xml = retencion
        ? withTfd(sealedXml, tfd)
        : sealedXml.includes('</cfdi:Complemento>')
          ? sealedXml.replace(/<\/cfdi:Complemento>(?![\s\S]*<\/cfdi:Complemento>)/, `${tfdXml}</cfdi:Complemento>`)
          : sealedXml.replace(/<\/cfdi:Comprobante>\s*$/, `<cfdi:Complemento>${tfdXml}</cfdi:Complemento></cfdi:Comprobante>`);
      return { ok: true, xml, tfd };
    },
  };
}

/** What the simulated SAT knows: the CFDI the sandbox stamped and the cancellation requests it received. */
export interface SandboxSatRegistry {
  db: Db;
  /** The sandbox (test) CFDI with this UUID: what its XML says and whether a vigente document relates to it. */
  find(uuid: string): Promise<{ tenantId: string; facts: CancellationFacts; hasDependents: boolean } | undefined>;
  /** CANCELLATION_POLL_SECONDS in ms: the simulated receiver answers within half of it. */
  pollMs: number;
}

const FOUND = 'S - Comprobante obtenido satisfactoriamente.';
const NOT_FOUND: SatStatus = {
  CodigoEstatus: 'N - 602: Comprobante no encontrado.',
  Estado: 'No Encontrado',
  EsCancelable: '',
  EstatusCancelacion: '',
  ValidacionEFOS: '',
};

/** SAT's acknowledgement of a cancellation request, signed by the sandbox SAT certificate. EstatusUUID 201: received. */
function sandboxAcuse(sat: SandboxSat, request: Pick<CancelRequest, 'rfcEmisor' | 'uuid'>, fecha: string, ns = 'http://cancelacfd.sat.gob.mx'): string {
  const xml =
    `<Acuse xmlns="${ns}" Fecha="${fecha}" RfcEmisor="${request.rfcEmisor.replace(/&/g, '&amp;')}">` +
    `<Folios><UUID>${request.uuid}</UUID><EstatusUUID>201</EstatusUUID></Folios></Acuse>`;
  return signEnveloped(xml, { privateKey: sat.privateKey, certificateDer: sat.certificateDer });
}

/**
 * A request for a UUID the sandbox already holds (and did not reject) is answered with the earlier acuse, as SAT
 * answers a repeated request; after a rejection a new request starts over.
 */
async function simulateCancel(
  sat: SandboxSat,
  registry: SandboxSatRegistry,
  at: Date,
  request: CancelRequest,
  scenario?: CancelScenario,
): Promise<CancelResult> {
  const query = { uuid: request.uuid, rfcEmisor: request.rfcEmisor, rfcReceptor: request.rfcReceptor, total: request.total, sello: request.sello };
  const cfdi = await registry.find(request.uuid);
  const before = await simulateStatus(registry, cfdi, at, query);
  if (before.Estado === 'No Encontrado')
    return { ok: false, retryable: false, code: '205', message: 'sandbox: UUID no existe (no sandbox CFDI matches the UUID, RFCs and total)' };
  if (before.EsCancelable === 'No cancelable')
    return { ok: false, retryable: false, code: '205', message: 'sandbox: No cancelable: a vigente CFDI relates to it' };
  const [held] = await registry.db.select().from(sandboxCancellations).where(eq(sandboxCancellations.uuid, request.uuid));
  if (!held || before.EstatusCancelacion === 'Solicitud rechazada') {
    const row = {
      uuid: request.uuid,
      tenantId: cfdi!.tenantId, // found: the status above was not No Encontrado
      scenario: scenario ?? 'default',
      requiresAcceptance: request.requiresAcceptance,
      requestedAt: at.toISOString(),
      acuseXml: Buffer.from(sandboxAcuse(sat, request, wallClock(at, 'America/Mexico_City')), 'utf8'),
    };
    await registry.db.insert(sandboxCancellations).values(row).onConflictDoUpdate({ target: sandboxCancellations.uuid, set: row });
  }
  const [acuse] = await registry.db.select().from(sandboxCancellations).where(eq(sandboxCancellations.uuid, request.uuid));
  return {
    ok: true,
    acuseXml: acuse!.acuseXml.toString('utf8'),
    estatusUuid: held && before.Estado === 'Cancelado' ? '202' : '201',
    status: await simulateStatus(registry, cfdi, at, query),
  };
}

/**
 * Where a cancellation stands, from the scenario and the time since the request (deterministic, and the same
 * whoever asks): by default cancelled at once; the receiver accepts or rejects half a poll interval after the
 * request (so the next poll sees it); with `cancel_expired` it never answers and the window closes after one and a
 * half intervals (the second poll).
 */
async function simulateStatus(registry: SandboxSatRegistry, cfdi: Awaited<ReturnType<SandboxSatRegistry['find']>>, at: Date, q: CfdiQuery): Promise<SatStatus> {
  if (!cfdi) return NOT_FOUND;
  const f = cfdi.facts;
  const sameTotal = (() => {
    try {
      return Dec.parse(f.total).cmp(Dec.parse(q.total)) === 0;
    } catch {
      return false;
    }
  })();
  if (f.rfcEmisor !== q.rfcEmisor || f.rfcReceptor !== q.rfcReceptor || !sameTotal || !f.sello.endsWith(q.sello.slice(-8))) return NOT_FOUND;
  const [held] = await registry.db.select().from(sandboxCancellations).where(eq(sandboxCancellations.uuid, q.uuid));
  const withAcceptance = held ? held.scenario !== 'default' || held.requiresAcceptance : false;
  const esCancelable: SatStatus['EsCancelable'] =
    cfdi.hasDependents && !held ? 'No cancelable' : withAcceptance ? 'Cancelable con aceptación' : 'Cancelable sin aceptación';
  const base = { CodigoEstatus: FOUND, EsCancelable: esCancelable, ValidacionEFOS: '200' };
  if (!held) return { ...base, Estado: 'Vigente', EstatusCancelacion: '' };
  const elapsed = at.getTime() - Date.parse(held.requestedAt);
  const answered = elapsed >= registry.pollMs / 2;
  switch (held.scenario as CancelScenario | 'default') {
    case 'cancel_pending_accept':
      return answered
        ? { ...base, Estado: 'Cancelado', EstatusCancelacion: 'Cancelado con aceptación' }
        : { ...base, Estado: 'Vigente', EstatusCancelacion: 'En proceso' };
    case 'cancel_rejected':
      return { ...base, Estado: 'Vigente', EstatusCancelacion: answered ? 'Solicitud rechazada' : 'En proceso' };
    case 'cancel_expired':
      return elapsed >= registry.pollMs * 1.5
        ? { ...base, Estado: 'Cancelado', EstatusCancelacion: 'Plazo vencido' }
        : { ...base, Estado: 'Vigente', EstatusCancelacion: 'En proceso' };
    default:
      return { ...base, Estado: 'Cancelado', EstatusCancelacion: held.requiresAcceptance ? 'Cancelado con aceptación' : 'Cancelado sin aceptación' };
  }
}

/** The sandbox's retención of this test tenant with this UUID: what the simulated SAT knows it stamped. */
async function stampedRetencion(db: Db, tenantId: string, uuid: string): Promise<boolean> {
  const rows = await db
    .select({ id: retenciones.id })
    .from(retenciones)
    .where(and(eq(retenciones.uuid, uuid.toUpperCase()), eq(retenciones.tenantId, tenantId), eq(retenciones.environment, 'test')));
  return rows.length > 0;
}

/**
 * A retención's cancellation: at once, without the receiver's acceptance (docs/decisions.md, "Retenciones 2.0:
 * cancellation, SAT status, PDF"); a repeated request is answered with the earlier acuse (EstatusUUID 202).
 */
async function simulateRetencionCancel(sat: SandboxSat, db: Db, at: Date, request: RetencionCancelRequest): Promise<CancelResult> {
  if (!(await stampedRetencion(db, request.tenantId, request.uuid)))
    return { ok: false, retryable: false, code: '205', message: 'sandbox: UUID no existe (no sandbox retención of this tenant has the UUID)' };
  const [held] = await db.select().from(sandboxCancellations).where(eq(sandboxCancellations.uuid, request.uuid));
  if (held) return { ok: true, acuseXml: held.acuseXml.toString('utf8'), estatusUuid: '202' };
  const acuse = sandboxAcuse(sat, request, wallClock(at, 'America/Mexico_City'), 'http://cancelaretencion.sat.gob.mx');
  const row = { uuid: request.uuid, tenantId: request.tenantId, scenario: 'retencion', requiresAcceptance: false, requestedAt: at.toISOString() };
  await db
    .insert(sandboxCancellations)
    .values({ ...row, acuseXml: Buffer.from(acuse, 'utf8') })
    .onConflictDoNothing();
  const [stored] = await db.select().from(sandboxCancellations).where(eq(sandboxCancellations.uuid, request.uuid));
  return { ok: true, acuseXml: stored!.acuseXml.toString('utf8'), estatusUuid: '201' };
}

async function simulateRetencionStatus(db: Db, tenantId: string, uuid: string): Promise<RetencionSatStatus> {
  if (!(await stampedRetencion(db, tenantId, uuid))) return { estado: 'No Encontrado', estatusCancelacion: null, fechaCancelacion: null };
  const [held] = await db.select().from(sandboxCancellations).where(eq(sandboxCancellations.uuid, uuid.toUpperCase()));
  return held
    ? { estado: 'Cancelado', estatusCancelacion: 'Cancelado sin aceptación', fechaCancelacion: held.requestedAt }
    : { estado: 'Vigente', estatusCancelacion: null, fechaCancelacion: null };
}

/**
 * The sandbox simulator's Lista 69-B (test mode never asks SAT): EFO900101AB1 is always `definitivo`, so a test
 * credential can try BLOCK_69B_RECEIVERS and the 69-B flag of received CFDI; the others, one per situación.
 */
export const SANDBOX_69B: readonly { rfc: string; situacion: 'presunto' | 'definitivo' | 'desvirtuado' | 'sentencia_favorable' }[] = [
  { rfc: 'EFO900101AB1', situacion: 'definitivo' },
  { rfc: 'PRE900101AB2', situacion: 'presunto' },
  { rfc: 'DES900101AB3', situacion: 'desvirtuado' },
  { rfc: 'SFA900101AB4', situacion: 'sentencia_favorable' },
];
