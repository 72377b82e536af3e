import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT, UnsecuredJWT } from 'jose';
import { newId } from '../../src/lib/ids.ts';
import { RetencionBatchExamples, RetencionExamples } from '../../src/invoices/retenciones/examples.ts';
import { CORPUS } from '../cfdi/corpus.ts';
import { openReceipt } from '../portal/receipts.ts';
import { createKey, createTestApp, csdFiles, csdForm, issuer, smtpSink, TEST_JWT_SECRET, userWithRole } from '../helpers.ts';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../../src/db/schema/index.ts';

/**
 * The shared security suite (issue 11): every operation of GET /api/v1/openapi.json must have an entry in SECURITY
 * below, and each entry is checked against the running app: no, malformed, unknown, revoked or expired credential → 401;
 * each caller the entry does not allow → 403; every allowed caller with another tenant's ids in the path → 404, the same
 * answer as for an id that does not exist (and the caller's own test ids from its live credentials → 404 too); every
 * allowed caller gets through; and every refused request leaves both tenants' rows byte for byte as they were. Each
 * status seen must be one the operation documents, and each error the envelope.
 */

type Role = 'ADMIN' | 'OPERATOR' | 'VIEWER';
type Caller = Role | 'API_KEY';
const CALLERS: Caller[] = ['ADMIN', 'OPERATOR', 'VIEWER', 'API_KEY'];
const ALL: Role[] = ['ADMIN', 'OPERATOR', 'VIEWER'];
const WRITERS: Role[] = ['ADMIN', 'OPERATOR'];
const ADMIN: Role[] = ['ADMIN'];

/** A request body: JSON, or multipart built fresh for every request. */
type Body = { json: unknown } | { form: () => FormData };

/** A one-taxpayer Lista 69-B as SAT lays it out, as the multipart field `file`. */
function lista69bForm() {
  const form = new FormData();
  form.append('file', new Blob(['fecha\r\ntitulo\r\nNo,RFC,Nombre,Situación\r\n1,SEC900101AB9,INTRUSO,Definitivo\r\n']), 'Listado_Completo_69-B.csv');
  return form;
}

/** What a path parameter holds: a resource kind of KINDS, owned per tenant or shared by all. */
type Kind = keyof typeof KINDS;

interface Entry {
  /** User roles (JWT) that may call it. An API key acts as ADMIN: it may call whatever ADMIN may, unless `session`. */
  roles: Role[];
  /** Needs a person's session (JWT, scheme bearerJwt): an API key is refused with 403. */
  session?: true;
  /** The kind of resource in each path parameter, by name. */
  params?: Record<string, Kind>;
  /** A body the operation would accept, so that a refusal is never a validation error in disguise. */
  body?: (f: Fixtures) => Body;
  /** A query string the operation needs (its required parameters), for the same reason. */
  query?: string;
}
const PUBLIC = 'public' as const;

/**
 * THE security table: one entry per operationId of the OpenAPI document (read from the routes' requireRole /
 * requireUserSession and the services' own checks). A new route fails the coverage test until it is added here.
 */
const SECURITY: Record<string, Entry | typeof PUBLIC> = {
  // System and sign-in: no credential (spec: /health and /auth/* need none).
  getHealth: PUBLIC,
  getLiveness: PUBLIC,
  getSandboxSatCertificate: PUBLIC,
  getOpenApi: PUBLIC,
  getApiReference: PUBLIC,
  getRoot: PUBLIC,
  registerTenant: PUBLIC,
  login: PUBLIC,
  refreshSession: PUBLIC,
  logout: PUBLIC,
  getMe: { roles: ALL },

  // The self-invoicing portal: no credential (a customer, not the tenant); isolated by ticket key, checked below.
  getPortalPage: PUBLIC,
  getPortalLogo: PUBLIC,
  getPortalTicket: PUBLIC,
  invoicePortalTicket: PUBLIC,
  downloadPortalTicketPdf: PUBLIC,
  downloadPortalTicketXml: PUBLIC,

  // Users: any caller reads; managing needs ADMIN in a user session. updateUser / changePassword also let a user act
  // on themselves (own nombre, own password): the resource here is always another user, so only ADMIN may.
  createUser: {
    roles: ADMIN,
    session: true,
    body: () => ({ json: { email: `sec-${randomUUID().slice(0, 8)}@example.com`, password: 'a-long-password-9', nombre: 'Intruso', role: 'ADMIN' } }),
  },
  listUsers: { roles: ALL },
  getUser: { roles: ALL, params: { id: 'user' } },
  updateUser: { roles: ADMIN, session: true, params: { id: 'user' }, body: () => ({ json: { role: 'ADMIN', nombre: 'Cambiado' } }) },
  deleteUser: { roles: ADMIN, session: true, params: { id: 'user' } },
  changePassword: { roles: ADMIN, session: true, params: { id: 'user' }, body: () => ({ json: { new_password: 'hijacked-password-1' } }) },

  // API keys: a user session only (spec: "API keys proxy, Bearer (JWT)").
  createApiKey: { roles: ADMIN, session: true, body: () => ({ json: { name: 'intruso' } }) },
  listApiKeys: { roles: ALL, session: true },
  revokeApiKey: { roles: ADMIN, session: true, params: { id: 'apiKey' } },

  // The tenant that owns the credential: no id in the path, nothing of another tenant to name.
  getTenant: { roles: ALL },
  updateTenant: { roles: ADMIN, body: () => ({ json: { nombre: 'NOMBRE CAMBIADO' } }) },
  uploadTenantLogo: { roles: ADMIN, body: (f) => ({ form: () => logoForm(f.logo) }) },
  getTenantLogo: { roles: ALL },
  deleteTenantLogo: { roles: ADMIN },

  uploadCsd: { roles: ADMIN, body: () => ({ form: () => csdForm(CSD) }) },
  listCsds: { roles: ALL },
  getCsd: { roles: ALL, params: { id: 'csd' } },
  deleteCsd: { roles: ADMIN, params: { id: 'csd' } },
  activateCsd: { roles: ADMIN, params: { id: 'csd' } },
  deactivateCsd: { roles: ADMIN, params: { id: 'csd' } },

  // The tenant's FIEL: one per tenant, no id in the path.
  putFiel: { roles: ADMIN, body: () => ({ form: () => csdForm(FIEL) }) },
  getFiel: { roles: ALL },
  deleteFiel: { roles: ADMIN },
  // Lista 69-B: uploading replaces the tenant's own list (ADMIN); anyone reads what its environment consults.
  uploadLista69b: { roles: ADMIN, body: () => ({ form: () => lista69bForm() }) },
  getLista69b: { roles: ALL },
  // Received CFDI: asking SAT for one's status is a write (it stores the answer): ADMIN or OPERATOR.
  refreshReceivedCfdi: { roles: WRITERS, params: { id: 'received' } },

  // Received CFDIs: uploaded by writers, read by all; a document that is not a CFDI is still answered 200 (invalid).
  uploadReceivedCfdis: { roles: WRITERS, body: () => ({ form: () => receivedForm('<documento/>') }) },
  listReceivedCfdis: { roles: ALL },
  getReceivedCfdi: { roles: ALL, params: { id: 'received' } },
  downloadReceivedCfdiXml: { roles: ALL, params: { id: 'received' } },
  downloadReceivedCfdiPdf: { roles: ALL, params: { id: 'received' } },

  // SAT downloads: writers request (test mode: the simulator answers), everyone reads.
  createSatDownload: { roles: WRITERS, body: () => ({ json: { direction: 'issued', kind: 'metadata', desde: '2026-01-01', hasta: '2026-01-31' } }) },
  listSatDownloads: { roles: ALL },
  getSatDownload: { roles: ALL, params: { id: 'satDownload' } },
  // The scheduled sync: one setting per environment, no id in the path; ADMIN sets it, everyone reads it.
  getSatDownloadSync: { roles: ALL },
  putSatDownloadSync: { roles: ADMIN, body: () => ({ json: { enabled: true } }) },

  createClient: { roles: WRITERS, body: () => ({ json: CLIENT }) },
  listClients: { roles: ALL },
  getClient: { roles: ALL, params: { id: 'client' } },
  updateClient: { roles: WRITERS, params: { id: 'client' }, body: () => ({ json: { nombre: 'CLIENTE CAMBIADO' } }) },
  deleteClient: { roles: WRITERS, params: { id: 'client' } },

  createSeries: { roles: WRITERS, body: () => ({ json: { serie: `Z${++serieSeq}`, default: true } }) },
  listSeries: { roles: ALL },
  getSeries: { roles: ALL, params: { id: 'series' } },
  updateSeries: { roles: WRITERS, params: { id: 'series' }, body: () => ({ json: { folio_inicial: 900, descripcion: 'cambiada' } }) },

  issueCfdi: { roles: WRITERS, body: () => ({ json: INVOICE }) },
  issueRetencion: { roles: WRITERS, body: () => ({ json: RETENCION }) },
  validateRetencion: { roles: ALL, body: () => ({ json: RETENCION }) },
  listRetenciones: { roles: ALL },
  getRetencion: { roles: ALL, params: { id: 'retencion' } },
  downloadRetencionXml: { roles: ALL, params: { id: 'retencion' } },
  issueRetencionBatch: { roles: WRITERS, body: () => ({ json: RetencionBatchExamples.retencion_batch_plataformas.value }) },
  downloadRetencionPdf: { roles: ALL, params: { id: 'retencion' } },
  cancelRetencion: { roles: WRITERS, params: { id: 'retencion' }, body: () => ({ json: { motivo: '02' } }) },
  getRetencionSatStatus: { roles: ALL, params: { id: 'retencion' } },
  emailRetencion: { roles: WRITERS, params: { id: 'retencion' }, body: () => ({ json: { to: ['intruso@example.com'] } }) },
  listRetencionEmails: { roles: ALL, params: { id: 'retencion' } },
  validateCfdi: { roles: ALL, body: () => ({ json: INVOICE }) },
  listCfdis: { roles: ALL },
  exportCfdis: { roles: ALL },
  getCfdi: { roles: ALL, params: { id: 'cfdi' } },
  downloadCfdiXml: { roles: ALL, params: { uuid: 'cfdiUuid' } },
  downloadCfdiPdf: { roles: ALL, params: { uuid: 'cfdiUuid' } },
  cancelCfdi: { roles: WRITERS, params: { id: 'cfdiRef' }, body: () => ({ json: { motivo: '02' } }) },
  getCfdiCancellation: { roles: ALL, params: { id: 'cfdiRef' } },
  downloadCancellationRequest: { roles: ALL, params: { id: 'cfdiRef' } },
  downloadCancellationAcuse: { roles: ALL, params: { id: 'cfdiRef' } },
  getCfdiSatStatus: { roles: ALL, params: { id: 'cfdiRef' } },
  withdrawCfdi: { roles: WRITERS, params: { id: 'cfdiRef' } },
  emailCfdi: { roles: WRITERS, params: { id: 'cfdiRef' }, body: () => ({ json: { to: ['intruso@example.com'] } }) },
  listCfdiEmails: { roles: ALL, params: { id: 'cfdiRef' } },

  createReceipt: { roles: WRITERS, body: () => ({ json: RECEIPT }) },
  listReceipts: { roles: ALL },
  getReceipt: { roles: ALL, params: { id: 'receipt' } },
  cancelReceipt: { roles: WRITERS, params: { id: 'receipt' } },
  invoiceReceipt: { roles: WRITERS, params: { id: 'receipt' }, body: () => ({ json: { receptor: CLIENT } }) },
  issueGlobalInvoice: { roles: WRITERS, body: () => ({ json: { periodicidad: '01', desde: '2026-01-01', hasta: '2026-01-01' } }) },
  getReceiptSettings: { roles: ALL },
  updateReceiptSettings: { roles: ADMIN, body: () => ({ json: { auto_global_invoice: '04' } }) },

  // Webhooks: an API key, or a JWT with role ADMIN (spec).
  createWebhook: { roles: ADMIN, body: (f) => ({ json: { url: f.hookUrl, events: ['*'] } }) },
  listWebhooks: { roles: ADMIN },
  getWebhook: { roles: ADMIN, params: { id: 'webhook' } },
  updateWebhook: { roles: ADMIN, params: { id: 'webhook' }, body: () => ({ json: { events: ['cfdi.cancelado'], estado: 'PAUSADO' } }) },
  deleteWebhook: { roles: ADMIN, params: { id: 'webhook' } },
  listWebhookDeliveries: { roles: ADMIN, params: { id: 'webhook' } },
  testWebhook: { roles: ADMIN, params: { id: 'webhook' } },
  retryWebhookDelivery: { roles: ADMIN, params: { id: 'webhook', delivery_id: 'delivery' } },
  rotateWebhookSecret: { roles: ADMIN, params: { id: 'webhook' }, body: () => ({ json: { expire_previous_in_hours: 0 } }) },

  // SAT catalogs are the same for every tenant: nothing to isolate, only a credential to check.
  listCatalog: { roles: ALL, params: { catalogo: 'catalog' } },
  getCatalogEntry: { roles: ALL, params: { catalogo: 'catalog', clave: 'catalogKey' } },
  listColonias: { roles: ALL, query: 'codigo_postal=64000' },
  getStats: { roles: ALL },

  // GET /audit-log: ADMIN users and API keys.
  listAuditLog: { roles: ADMIN },
  // GET /pacs: ADMIN users and API keys (the PACs are the operator's, the same for every tenant: nothing to isolate).
  listPacs: { roles: ADMIN },
};

// ---------------------------------------------------------------------------------------------------------------

const sink = await smtpSink(); // the email routes send through it
afterAll(() => sink.close());
const t = await createTestApp({ webhookAllowPrivate: true, smtp: { ...sink.smtp, testCapture: 'captura@example.com' } }); // the webhook receiver is on loopback; test-mode emails to any address
const CSD = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
const FIEL = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');
const INVOICE = CORPUS.find(([name]) => name === 'IVA 16 %')![1];
const CLIENT = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
const RETENCION = RetencionExamples.retencion_arrendamiento.value;
const RECEIPT = { forma_pago: '01', conceptos: (INVOICE as { conceptos: unknown[] }).conceptos };
let serieSeq = 0;

function receivedForm(xml: string) {
  const form = new FormData();
  form.append('file', new File([xml], 'recibida.xml', { type: 'application/xml' }));
  return form;
}

function logoForm(png: Buffer) {
  const form = new FormData();
  form.append('logo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'logo.png');
  return form;
}

/** One tenant's credentials and one resource of each kind. */
interface TenantFx {
  tenantId: string;
  tokens: Record<Role, string>;
  key: string;
  liveKey: string;
  refreshToken: string;
  users: string[];
  targetUser: string;
  spareKey: string;
  csd: string;
  fiel: string;
  /** A received CFDI (its own invoice uploaded as received: stored invalid, another receptor). */
  received: string;
  satDownload: string;
  client: string;
  series: string;
  cfdi: string;
  uuid: string;
  retencion: string;
  retencionUuid: string;
  webhook: string;
  delivery: string;
  receipt: string;
  /** An open ticket's self-invoice key (the portal's only credential). */
  ticketKey: string;
}
interface Fixtures {
  a: TenantFx;
  b: TenantFx;
  hookUrl: string;
  logo: Buffer;
  /** Authorization header values (or none) that must all be refused with 401. */
  badCredentials: [string, string | undefined][];
}

/**
 * Path parameter kinds: the calling tenant's resource, another tenant's (each must be 404), and one that does not exist.
 * `perEnvironment`: test and live data never mix, so the caller's own test resource is 404 to its live credentials too.
 */
const KINDS = {
  user: { own: (f: Fixtures) => f.a.targetUser, foreign: (f: Fixtures) => [f.b.targetUser, f.b.users[0]!], missing: () => newId('usr') },
  apiKey: { own: (f: Fixtures) => f.a.spareKey, foreign: (f: Fixtures) => [f.b.spareKey], missing: () => newId('ak') },
  csd: { perEnvironment: true, own: (f: Fixtures) => f.a.csd, foreign: (f: Fixtures) => [f.b.csd], missing: () => newId('csd') },
  client: { perEnvironment: true, own: (f: Fixtures) => f.a.client, foreign: (f: Fixtures) => [f.b.client], missing: () => newId('cli') },
  series: { perEnvironment: true, own: (f: Fixtures) => f.a.series, foreign: (f: Fixtures) => [f.b.series], missing: () => newId('ser') },
  cfdi: { perEnvironment: true, own: (f: Fixtures) => f.a.cfdi, foreign: (f: Fixtures) => [f.b.cfdi], missing: () => newId('cfdi') },
  // The UUID paths accept the cfdi_ id too, and UUIDs in any case.
  cfdiUuid: {
    perEnvironment: true,
    own: (f: Fixtures) => f.a.uuid,
    foreign: (f: Fixtures) => [f.b.uuid, f.b.uuid.toLowerCase(), f.b.cfdi],
    missing: (v: string) => missingCfdiRef(v),
  },
  cfdiRef: {
    perEnvironment: true,
    own: (f: Fixtures) => f.a.cfdi,
    foreign: (f: Fixtures) => [f.b.cfdi, f.b.uuid, f.b.uuid.toLowerCase()],
    missing: (v: string) => missingCfdiRef(v),
  },
  // A retención by its ret_ id or its UUID, in any case.
  retencion: {
    perEnvironment: true,
    own: (f: Fixtures) => f.a.retencion,
    foreign: (f: Fixtures) => [f.b.retencion, f.b.retencionUuid, f.b.retencionUuid.toLowerCase()],
    missing: (v: string) => (v.startsWith('ret_') ? newId('ret') : randomUUID()),
  },
  webhook: { perEnvironment: true, own: (f: Fixtures) => f.a.webhook, foreign: (f: Fixtures) => [f.b.webhook], missing: () => randomUUID() },
  delivery: { perEnvironment: true, own: (f: Fixtures) => f.a.delivery, foreign: (f: Fixtures) => [f.b.delivery], missing: () => randomUUID() },
  receipt: { perEnvironment: true, own: (f: Fixtures) => f.a.receipt, foreign: (f: Fixtures) => [f.b.receipt], missing: () => newId('rcpt') },
  received: { perEnvironment: true, own: (f: Fixtures) => f.a.received, foreign: (f: Fixtures) => [f.b.received], missing: () => newId('rcv') },
  satDownload: { perEnvironment: true, own: (f: Fixtures) => f.a.satDownload, foreign: (f: Fixtures) => [f.b.satDownload], missing: () => newId('satdl') },
  catalog: { shared: 'regimenes-fiscales' },
  catalogKey: { shared: '601' },
} satisfies Record<
  string,
  { perEnvironment?: true; own: (f: Fixtures) => string; foreign: (f: Fixtures) => string[]; missing: (v: string) => string } | { shared: string }
>;
const missingCfdiRef = (v: string) => (v.startsWith('cfdi_') ? newId('cfdi') : v === v.toLowerCase() ? randomUUID() : randomUUID().toUpperCase());

// ---------------------------------------------------------------------------------------------------------------

/** The document, and every operation in it. */
const doc = (await t.call('GET', '/openapi.json')).json;
interface Operation {
  id: string;
  method: string;
  path: string;
  spec: any;
}
const OPERATIONS: Operation[] = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(method))
    .map(([method, spec]) => ({ id: spec.operationId ?? `(no operationId: ${method.toUpperCase()} ${path})`, method: method.toUpperCase(), path, spec })),
);
const pathParams = (op: Operation) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const documented = (op: Operation) => Object.keys(op.spec.responses ?? {}).map(Number);
const entryOf = (op: Operation) => SECURITY[op.id];
const authed = OPERATIONS.filter((op) => entryOf(op) && entryOf(op) !== PUBLIC) as Operation[];
const mayCall = (e: Entry, c: Caller) => (c === 'API_KEY' ? e.roles.includes('ADMIN') && !e.session : e.roles.includes(c));

let f: Fixtures;

interface Res {
  /** The path requested (set by send). */
  path?: string;
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

async function send(
  op: Operation,
  params: Record<string, string>,
  authorization: string | undefined,
  body?: Body,
  extra: Record<string, string> = {},
): Promise<Res> {
  const path = concrete(op, params, encodeURIComponent);
  return { ...(await sendTo(op.method, path, authorization, body, extra)), path };
}
async function sendTo(method: string, path: string, authorization: string | undefined, body?: Body, extra: Record<string, string> = {}): Promise<Res> {
  const headers: Record<string, string> = authorization === undefined ? { ...extra } : { ...extra, authorization };
  if (path.startsWith('/api/') && !(body && 'form' in body)) return t.call(method, path, { headers, body: body?.json });
  // Multipart bodies, and paths outside /api (t.call prefixes /api/v1).
  const res = await t.app.request(path, { method, headers, body: body && 'form' in body ? body.form() : undefined });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: parse(text) };
}
const parse = (text: string) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const bearer = (token: string) => `Bearer ${token}`;
const credentialOf = (c: Caller, tenant: TenantFx) => bearer(c === 'API_KEY' ? tenant.key : tenant.tokens[c]);

/**
 * Checks a response against the expected statuses, the operation's documented responses and, for errors, the
 * envelope; returns the problems found (empty when all is well), each naming the request.
 */
function problemsOf(op: Operation, label: string, res: Res, expected: number[]): string[] {
  const what = `${op.id} ${label}: ${op.method} ${res.path} → ${res.status}`;
  const out: string[] = [];
  if (!expected.includes(res.status)) out.push(`${what}, expected ${expected.join(' or ')}: ${res.text.slice(0, 200)}`);
  if (!documented(op).includes(res.status)) out.push(`${what}, which the document does not list (it lists ${documented(op).join(', ')})`);
  if (res.status >= 400) {
    const e = res.json;
    const ok =
      e?.error?.code === `HTTP_${res.status}` &&
      typeof e.error.message === 'string' &&
      Array.isArray(e.error.details) &&
      typeof e.request_id === 'string' &&
      e.request_id.length > 0 &&
      e.request_id === res.headers.get('x-request-id') &&
      e.path === res.path?.split('?')[0] &&
      typeof e.timestamp === 'string' &&
      new Date(e.timestamp).toISOString() === e.timestamp;
    if (!ok) out.push(`${what}: not the error envelope: ${res.text.slice(0, 200)}`);
    if (res.status === 401 && res.headers.get('www-authenticate') !== 'Bearer') out.push(`${what}: 401 without WWW-Authenticate: Bearer`);
  }
  return out;
}

/** Path values: the caller's own resource for each parameter (or the shared value). */
function ownParams(e: Entry): Record<string, string> {
  return Object.fromEntries(
    Object.entries(e.params ?? {}).map(([name, kind]): [string, string] => {
      const k = KINDS[kind];
      return [name, 'shared' in k ? k.shared : k.own(f)];
    }),
  );
}

/** Every way to name another tenant's resource: one foreign parameter at a time, then all of them. */
function foreignVariants(e: Entry): { params: Record<string, string>; missing: Record<string, string> }[] {
  const own = ownParams(e);
  const owned = Object.entries(e.params ?? {}).filter(([, kind]) => !('shared' in KINDS[kind])) as [string, Exclude<Kind, 'catalog' | 'catalogKey'>][];
  const variants: { params: Record<string, string>; missing: Record<string, string> }[] = [];
  for (const [name, kind] of owned) {
    for (const value of KINDS[kind].foreign(f)) variants.push({ params: { ...own, [name]: value }, missing: { ...own, [name]: KINDS[kind].missing(value) } });
  }
  if (owned.length > 1) {
    const params = { ...own };
    const missing = { ...own };
    for (const [name, kind] of owned) {
      params[name] = KINDS[kind].foreign(f)[0]!;
      missing[name] = KINDS[kind].missing(params[name]!);
    }
    variants.push({ params, missing });
  }
  return variants;
}

/** What a refusal says, without what differs per request (path, time, request id). */
const answer = (r: Res) => JSON.stringify([r.status, r.json?.error?.code, r.json?.error?.message, r.json?.error?.details]);
const concrete = (op: Operation, params: Record<string, string>, encode = (v: string) => v) => {
  const query = (SECURITY[op.id] as Entry | undefined)?.query;
  return op.path.replace(/\{(\w+)\}/g, (_, n: string) => encode(params[n]!)) + (query ? `?${query}` : '');
};

// ---------------------------------------------------------------------------------------------------------------
// Set-up: two tenants (A calls, B is the other tenant), each with every kind of resource; one stamped CFDI each, its
// cancellation requested and waiting for the receiver, so the CFDI has a request, an acuse and a SAT status.

const receiver = Bun.serve({ port: 0, fetch: () => new Response('ok') });
afterAll(() => receiver.stop(true));

/** Every row that belongs to a tenant, in every table of the schema, as text (blobs as hex). */
const TABLES = (Object.values(schema) as unknown[])
  .filter((v): v is SQLiteTable => is(v, SQLiteTable))
  .map((table) => ({ table, name: getTableConfig(table).name, columns: getTableConfig(table).columns.map((c) => c.name) }))
  .filter((tb) => tb.name === 'tenants' || tb.columns.includes('tenant_id'));
async function snapshot(tenantId: string, ignore: Record<string, string[]> = {}): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const tb of TABLES) {
    const rows = await t.query(sql`select * from ${tb.table} where ${sql.identifier(tb.name === 'tenants' ? 'id' : 'tenant_id')} = ${tenantId}`);
    out[tb.name] = rows
      .map((r) => {
        for (const col of ignore[tb.name] ?? []) delete r[col];
        return JSON.stringify(r, (_, v) =>
          v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v,
        );
      })
      .sort();
  }
  return out;
}
/** Touched by every authenticated call with a key (at most once a minute): not a write the caller asked for. */
const AUTH_BOOKKEEPING = { api_keys: ['last_used_at'] };
let before: { a: Record<string, string[]>; b: Record<string, string[]> };

async function ok(res: Res | Promise<Res>, status: number, what: string) {
  const r = await res;
  if (r.status !== status) throw new Error(`set-up: ${what} → ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

async function makeTenant(hookUrl: string, logo: Buffer): Promise<TenantFx> {
  const reg = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000 });
  const admin = reg.token;
  const key = await reg.createKey();
  const spare = await reg.createKey('test', 'spare');
  const live = await reg.createKey('live', 'live');
  const operator = await reg.userWithRole('OPERATOR');
  const viewer = await reg.userWithRole('VIEWER');
  const target = await reg.userWithRole('VIEWER');
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.call(method, path, { token: key.key, body, headers });
  const csd = await ok(sendTo('POST', '/api/v1/csds', bearer(key.key), { form: () => csdForm(CSD) }), 201, 'CSD');
  const fiel = await ok(sendTo('PUT', '/api/v1/fiel', bearer(key.key), { form: () => csdForm(FIEL) }), 201, 'FIEL');
  const satDownload = (
    await ok(call('POST', '/sat-downloads', { direction: 'issued', kind: 'xml', desde: '2025-01-01', hasta: '2025-01-31' }), 202, 'SAT download')
  ).data[0];
  await ok(sendTo('PUT', '/api/v1/tenants/me/logo', bearer(key.key), { form: () => logoForm(logo) }), 200, 'logo');
  const client = await ok(call('POST', '/clients', CLIENT), 201, 'client');
  const series = await ok(call('POST', '/series', { serie: 'SEC', default: true }), 201, 'series');
  const webhook = await ok(call('POST', '/webhooks', { url: hookUrl, events: ['*'] }), 201, 'webhook');
  const cfdi = await ok(call('POST', '/cfdis', INVOICE), 201, 'stamp');
  const xml = await (await t.app.request(`/api/v1/cfdis/${cfdi.uuid}/xml`, { headers: { authorization: bearer(key.key) } })).text();
  const received = (await ok(sendTo('POST', '/api/v1/received-cfdis', bearer(key.key), { form: () => receivedForm(xml) }), 200, 'received CFDI')).data[0];
  await ok(call('POST', `/cfdis/${cfdi.id}/cancel`, { motivo: '02' }, { 'x-sandbox-scenario': 'cancel_pending_accept' }), 202, 'cancel');
  await ok(call('POST', `/cfdis/${cfdi.id}/email`, { to: ['cliente@example.com'] }), 202, 'email');
  const receipt = await ok(call('POST', '/receipts', RECEIPT), 201, 'receipt');
  const retencion = await ok(call('POST', '/retenciones', RETENCION), 201, 'retención');
  const ticketKey = (await openReceipt(reg)).key;
  // Drained until every delivery is done (cfdi.timbrado, cfdi.email_enviado after the email, two receipt.created,
  // received_cfdi.invalid, retencion.timbrada): the
  // app's own worker may hold one of them when a drain returns, and the snapshot below must see them at rest.
  let deliveries: { data: { id: string; state: string }[] } = { data: [] };
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    await t.app.worker.drain();
    deliveries = await ok(call('GET', `/webhooks/${webhook.id}/deliveries`), 200, 'deliveries');
    if (deliveries.data.length === 6 && deliveries.data.every((d) => d.state === 'entregado')) break;
    await Bun.sleep(20);
  }
  if (deliveries.data.length !== 6 || deliveries.data.some((d) => d.state !== 'entregado'))
    throw new Error(`set-up: deliveries not delivered: ${JSON.stringify(deliveries.data)}`);
  return {
    tenantId: reg.tenant.id,
    tokens: { ADMIN: admin, OPERATOR: operator.token, VIEWER: viewer.token },
    key: key.key,
    liveKey: live.key,
    refreshToken: reg.refreshToken,
    users: [reg.user.id, operator.id, viewer.id, target.id],
    targetUser: target.id,
    spareKey: spare.id,
    csd: csd.id,
    fiel: fiel.id,
    received: received.id,
    satDownload: satDownload.id,
    client: client.id,
    series: series.id,
    cfdi: cfdi.id,
    uuid: cfdi.uuid,
    retencion: retencion.id,
    retencionUuid: retencion.uuid,
    webhook: webhook.id,
    delivery: deliveries.data[0]!.id,
    receipt: receipt.id,
    ticketKey,
  };
}

beforeAll(async () => {
  const hookUrl = `http://127.0.0.1:${receiver.port}/hook`;
  const logo = readFileSync(new URL('../fixtures/branding/logo.png', import.meta.url));
  const a = await makeTenant(hookUrl, logo);
  const b = await makeTenant(hookUrl, logo);

  // A's credentials that no longer work: a revoked key, a deleted user's JWT.
  const revoked = await createKey(t, a.tokens.ADMIN, 'test', 'revoked');
  await ok(t.call('GET', '/auth/me', { token: revoked.key }), 200, 'key before revocation'); // resolved and cached once
  await ok(t.call('DELETE', `/api-keys/${revoked.id}`, { token: a.tokens.ADMIN }), 200, 'revoke');
  const gone = await userWithRole(t, a.tokens.ADMIN, 'ADMIN');
  await ok(t.call('GET', '/auth/me', { token: gone.token }), 200, 'deleted user before deletion');
  await ok(t.call('DELETE', `/users/${gone.id}`, { token: a.tokens.ADMIN }), 200, 'delete user');

  // JWTs with A's ADMIN's real claims (src/auth/tokens.ts): only the signature, algorithm or expiry is wrong.
  const ver = (await t.query<{ token_version: number }>(sql`select token_version from users where id = ${a.users[0]!}`))[0]!.token_version;
  const now = Math.floor(t.clock.now.getTime() / 1000);
  const jwt = (secret: string, exp: number) =>
    new SignJWT({ tid: a.tenantId, ver })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(a.users[0]!)
      .setIssuer('cfdi-api')
      .setAudience('cfdi-api/v1')
      .setIssuedAt(now - 3600)
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(secret));
  // Control: the same claims signed with the test secret and a future expiry are accepted.
  await ok(t.call('GET', '/auth/me', { token: await jwt(TEST_JWT_SECRET, now + 3600) }), 200, 'control JWT');
  const none = new UnsecuredJWT({ tid: a.tenantId, ver })
    .setSubject(a.users[0]!)
    .setIssuer('cfdi-api')
    .setAudience('cfdi-api/v1')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .encode();
  const randomKey = (prefix: string) => prefix + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

  f = {
    a,
    b,
    hookUrl,
    logo,
    badCredentials: [
      ['no Authorization header', undefined],
      ['Bearer with garbage', 'Bearer not-a-token'],
      ['Bearer with nothing', 'Bearer '],
      ['Basic credentials', `Basic ${Buffer.from('admin@example.com:a-long-password-1').toString('base64')}`],
      ['a valid API key without "Bearer"', a.key],
      ['an sk_test_ key that does not exist', bearer(randomKey('sk_test_'))],
      ['an sk_live_ key that does not exist', bearer(randomKey('sk_live_'))],
      ['a revoked API key', bearer(revoked.key)],
      ['a refresh token as bearer', bearer(a.refreshToken)],
      ['a JWT signed with another secret', bearer(await jwt('another-secret-that-is-long-enough-9876543210', now + 3600))],
      ['an alg:none JWT', bearer(none)],
      ['an expired JWT', bearer(await jwt(TEST_JWT_SECRET, now - 60))],
      ['the JWT of a deleted user', bearer(gone.token)],
    ],
  };
  // The SAT catalogs are loaded into a fresh database on first use (~1.5 s): pay it here, not in one probe's time limit.
  await ok(t.call('GET', '/catalogos/regimenes-fiscales/601', { token: a.key }), 200, 'catalog warm-up');
  before = { a: await snapshot(a.tenantId, AUTH_BOOKKEEPING), b: await snapshot(b.tenantId) };
}, 60_000);

// ---------------------------------------------------------------------------------------------------------------

describe('the security table covers the OpenAPI document', () => {
  test('every operation has an entry and every entry an operation', () => {
    const inDoc = new Set(OPERATIONS.map((op) => op.id));
    const problems: string[] = [];
    for (const op of OPERATIONS) {
      if (!op.spec.operationId) problems.push(`${op.method} ${op.path} has no operationId: give it one and add it to the security table`);
      else if (!(op.id in SECURITY))
        problems.push(`${op.method} ${op.path} (${op.id}) is not covered: add it to the security table in tests/gateway/security.test.ts`);
    }
    if (inDoc.size !== OPERATIONS.length) problems.push('operationIds are not unique');
    for (const id of Object.keys(SECURITY)) {
      if (!inDoc.has(id)) problems.push(`the security table names ${id}, which the document lacks: remove it from the security table`);
    }
    expect(problems).toEqual([]);
    expect(OPERATIONS.length).toBeGreaterThan(50);
  });

  test('every route the routers serve is in the document', () => {
    const inDoc = new Set(OPERATIONS.map((op) => `${op.method} ${op.path.replace(/\{(\w+)\}/g, ':$1')}`));
    const served = [t.app, t.app.backends.auth, t.app.backends.invoices]
      .flatMap((app) => app.routes as { method: string; path: string }[])
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .map((r) => `${r.method} ${r.path}`);
    expect(served.length).toBeGreaterThan(50);
    expect(served.filter((r) => !inDoc.has(r))).toEqual([]);
  });

  test('entries agree with the document: public ⇔ security: [], path parameters and bodies as declared', () => {
    const problems: string[] = [];
    for (const op of OPERATIONS) {
      const e = entryOf(op);
      if (!e) continue;
      const security = op.spec.security;
      const isPublic = Array.isArray(security) && security.length === 0;
      if ((e === PUBLIC) !== isPublic)
        problems.push(
          `${op.id}: the table says ${e === PUBLIC ? 'public' : 'authenticated'}, the document ${isPublic ? 'security: []' : 'needs a credential'}`,
        );
      if (e === PUBLIC) continue;
      const names = Object.keys(e.params ?? {}).sort();
      if (names.join() !== pathParams(op).sort().join())
        problems.push(`${op.id}: the table fills {${names.join(', ')}}, the path has {${pathParams(op).join(', ')}}`);
      const content = Object.keys(op.spec.requestBody?.content ?? {});
      if (content.length > 0 && !e.body) problems.push(`${op.id}: takes a body (${content.join(', ')}); give its entry a valid one`);
      if (content.length === 0 && e.body) problems.push(`${op.id}: takes no body, but its entry has one`);
      if (!documented(op).includes(401)) problems.push(`${op.id}: needs a credential but does not document 401`);
      if (CALLERS.some((c) => !mayCall(e, c)) && !documented(op).includes(403)) problems.push(`${op.id}: refuses some callers but does not document 403`);
      const declaresJwtOnly = JSON.stringify(security) === JSON.stringify([{ bearerJwt: [] }]);
      if (declaresJwtOnly && !e.session) problems.push(`${op.id}: the document accepts only bearerJwt; mark its entry session: true`);
      if (e.session && !declaresJwtOnly) problems.push(`${op.id}: refuses API keys but its security is not [{ bearerJwt: [] }]`);
    }
    expect(problems).toEqual([]);
  });
});

describe('public operations need no credential', () => {
  for (const op of OPERATIONS.filter((o) => entryOf(o) === PUBLIC)) {
    test(`${op.id}: a bad credential is ignored`, async () => {
      const body: Body | undefined = op.spec.requestBody ? { json: [] } : undefined; // invalid input: nothing is created
      const res = await send(op, {}, 'Bearer not-a-token', body);
      const expected = documented(op).filter((s) => s !== 401 && s !== 429 && s !== 503);
      expect(problemsOf(op, 'with a garbage credential', res, expected)).toEqual([]);
    });
  }
});

describe("the portal: another tenant's ticket key is not found, exactly as a key that does not exist", () => {
  const portalOps = OPERATIONS.filter((op) => op.path.startsWith('/portal/{tenant_id}/ticket'));
  const RECEPTOR = { rfc: CLIENT.rfc, nombre: CLIENT.nombre, domicilio_fiscal: CLIENT.domicilio_fiscal, regimen_fiscal: '601', uso_cfdi: 'G03' };
  const MISSING_KEY = '0000000000000000000000000Z';

  /** The operation at A's portal with this key; any credential sent is ignored by the portal. */
  async function portalCall(op: Operation, key: string, authorization?: string): Promise<Res> {
    const path = op.path.replace('{tenant_id}', f.a.tenantId);
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const init: RequestInit = { method: op.method, headers };
    let url = `${path}?clave=${key}&rfc=${RECEPTOR.rfc}`;
    if (op.method === 'POST') {
      url = path;
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify({ clave: key, receptor: RECEPTOR });
    }
    const res = await t.app.request(url, init);
    const text = await res.text();
    return { path, status: res.status, headers: res.headers, text, json: parse(text) };
  }

  test('covers every ticket operation of the portal', () => {
    expect(portalOps.map((op) => op.id).sort()).toEqual(['downloadPortalTicketPdf', 'downloadPortalTicketXml', 'getPortalTicket', 'invoicePortalTicket']);
  });

  for (const op of portalOps) {
    test(`${op.id}: B's key at A's portal → 404, as a missing key, with no credential or either tenant's`, async () => {
      const problems: string[] = [];
      for (const [label, authorization] of [
        ['no credential', undefined],
        ["A's API key", bearer(f.a.key)],
        ["B's API key", bearer(f.b.key)],
      ] as const) {
        const foreign = await portalCall(op, f.b.ticketKey, authorization);
        problems.push(...problemsOf(op, `with B's ticket key and ${label}`, foreign, [404]));
        const missing = await portalCall(op, MISSING_KEY, authorization);
        if (answer(foreign) !== answer(missing)) problems.push(`${op.id} with ${label}: answers ${answer(foreign)} but for a missing key ${answer(missing)}`);
        if (foreign.text.includes(f.b.tenantId)) problems.push(`${op.id} with ${label}: shows B's tenant id`);
      }
      expect(problems).toEqual([]);
    });
  }
});

describe("refused: bad credentials, roles not allowed, another tenant's ids", () => {
  for (const op of authed) {
    const e = entryOf(op) as Entry;

    test(`${op.id}: no, malformed, unknown, revoked or expired credential → 401`, async () => {
      const problems: string[] = [];
      for (const [label, authorization] of f.badCredentials) {
        problems.push(...problemsOf(op, label, await send(op, ownParams(e), authorization, e.body?.(f)), [401]));
      }
      expect(problems).toEqual([]);
    });

    const denied = CALLERS.filter((c) => !mayCall(e, c));
    if (denied.length > 0) {
      test(`${op.id}: ${denied.join(', ')} → 403`, async () => {
        const problems: string[] = [];
        for (const c of denied) problems.push(...problemsOf(op, `as ${c}`, await send(op, ownParams(e), credentialOf(c, f.a), e.body?.(f)), [403]));
        expect(problems).toEqual([]);
      });
    }

    const ownsResources = Object.values(e.params ?? {}).some((kind) => !('shared' in KINDS[kind]));
    if (ownsResources) {
      test(`${op.id}: another tenant's ids → 404, as if they did not exist`, async () => {
        const problems: string[] = [];
        for (const { params, missing } of foreignVariants(e)) {
          for (const c of CALLERS) {
            const label = `as ${c} with another tenant's ${JSON.stringify(params)}`;
            const res = await send(op, params, credentialOf(c, f.a), e.body?.(f));
            if (!mayCall(e, c)) {
              // A refused caller may be refused before or after the lookup; never anything else.
              problems.push(...problemsOf(op, label, res, [403, 404]));
              continue;
            }
            problems.push(...problemsOf(op, label, res, [404]));
            // The answer must not tell "exists elsewhere" from "does not exist".
            const absent = await send(op, missing, credentialOf(c, f.a), e.body?.(f));
            if (answer(res) !== answer(absent)) problems.push(`${op.id} ${label}: answers ${answer(res)} but for a missing id ${answer(absent)}`);
          }
        }
        expect(problems).toEqual([]);
      });
    }

    const perEnvironment = Object.values(e.params ?? {}).some((kind) => 'perEnvironment' in KINDS[kind]);
    // Live credentials of the same tenant: its sk_live_ key (where API keys may call) and its ADMIN's JWT with X-Environment: live.
    const liveCallers = [...(mayCall(e, 'API_KEY') ? ['its sk_live_ key'] : []), ...(mayCall(e, 'ADMIN') ? ['its ADMIN with X-Environment: live'] : [])];
    if (perEnvironment && liveCallers.length > 0) {
      test(`${op.id}: the caller's own test ids from its live environment → 404`, async () => {
        const problems: string[] = [];
        const own = ownParams(e);
        const missing = Object.fromEntries(
          Object.entries(e.params!).map(([name, kind]): [string, string] => {
            const k = KINDS[kind];
            return [name, 'perEnvironment' in k ? k.missing(own[name]!) : own[name]!];
          }),
        );
        for (const label of liveCallers) {
          const [authorization, headers] = label.includes('sk_live_') ? [bearer(f.a.liveKey), {}] : [credentialOf('ADMIN', f.a), { 'x-environment': 'live' }];
          const res = await send(op, own, authorization, e.body?.(f), headers);
          problems.push(...problemsOf(op, `as ${label} with its own test ${JSON.stringify(own)}`, res, [404]));
          const absent = await send(op, missing, authorization, e.body?.(f), headers);
          if (answer(res) !== answer(absent)) problems.push(`${op.id} as ${label}: answers ${answer(res)} but for a missing id ${answer(absent)}`);
        }
        expect(problems).toEqual([]);
      });
    }
  }
});

describe('refused requests wrote nothing', () => {
  test("both tenants' rows are byte for byte as before", async () => {
    expect(await snapshot(f.b.tenantId)).toEqual(before.b);
    expect(await snapshot(f.a.tenantId, AUTH_BOOKKEEPING)).toEqual(before.a);
  });
});

describe('allowed callers get through', () => {
  // Reads with the caller's own resources must succeed; writes are probed without effect (an invalid body, or an id
  // that does not exist) and must get past the credential and role checks. Reads first: the logo probe deletes.
  const probes = [...authed.filter((op) => op.method === 'GET'), ...authed.filter((op) => op.method !== 'GET')];
  for (const op of probes) {
    const e = entryOf(op) as Entry;
    const allowed = CALLERS.filter((c) => mayCall(e, c));
    test(`${op.id}: ${allowed.join(', ')} get through`, async () => {
      const problems: string[] = [];
      const names = Object.entries(e.params ?? {});
      const params = ownParams(e);
      const last = names.at(-1);
      if (op.method !== 'GET' && last && !('shared' in KINDS[last[1]]))
        params[last[0]] = (KINDS[last[1]] as { missing: (v: string) => string }).missing(params[last[0]]!);
      const body: Body | undefined = op.method === 'GET' || !e.body ? undefined : 'form' in e.body(f) ? { form: () => new FormData() } : { json: [] };
      for (const c of allowed) {
        const res = await send(op, params, credentialOf(c, f.a), body);
        const label = `as ${c} (allowed)`;
        const harmless = op.method !== 'GET' && (body || names.length > 0);
        const expected = documented(op).filter((s) =>
          op.method === 'GET' ? s >= 200 && s < 300 : harmless ? s >= 400 && s < 500 && s !== 401 && s !== 403 : s < 300,
        );
        problems.push(...problemsOf(op, label, res, expected));
        // Nothing of the other tenant in what the caller is shown.
        if (res.status < 300) {
          const leaked = [
            f.b.tenantId,
            ...f.b.users,
            f.b.spareKey,
            f.b.csd,
            f.b.fiel,
            f.b.satDownload,
            f.b.client,
            f.b.series,
            f.b.cfdi,
            f.b.uuid,
            f.b.webhook,
            f.b.delivery,
            f.b.receipt,
          ].filter((id) => res.text.includes(id));
          if (leaked.length) problems.push(`${op.id} ${label}: the response shows the other tenant's ${leaked.join(', ')}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  test('the other tenant is still byte for byte as before', async () => {
    expect(await snapshot(f.b.tenantId)).toEqual(before.b);
  });
});
