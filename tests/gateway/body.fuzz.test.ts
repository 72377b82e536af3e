import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { localDateTime } from '../../src/cfdi/time.ts';
import { RetencionBatchExamples, RetencionExamples } from '../../src/invoices/retenciones/examples.ts';
import { CORPUS, corpusResolver, EGRESOS, NOMINAS, PAGOS, TRASLADOS } from '../cfdi/corpus.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createTestApp, csdFiles, csdForm, exec, ICV, issuer, smtpSink, sqliteConnection, TENANTS, TEST_ENGINE } from '../helpers.ts';
import { createDbWatch, type TableChange } from './db-snapshot.ts';
import { createSchemaArbitraries, resolve, type JsonSchema } from './openapi-arbitrary.ts';
import { sql } from 'drizzle-orm';
import { type DbOrTx, withTransaction } from '../../src/db/index.ts';

/**
 * Property-based fuzzing of every request body the OpenAPI document describes (JSON, and multipart forms):
 * bodies generated from the operation's own schema — valid ones, near-misses, and known-good bodies mutated at one
 * node — sent with a credential allowed on the route and path params naming the tenant's real resources. For each:
 * (1) never a 5xx, and only statuses the operation documents; (2) a 4xx is the error envelope, and a 400/422 names
 * the offending fields; (3) a refused request leaves the database as it was, and an accepted one writes only the
 * tables its route owns. New routes with a body join the walk by themselves.
 *
 * Replay a failure: FUZZ_SEED=<seed> FUZZ_PATH=<path> FUZZ_ONLY=<operationId> npx bun test tests/gateway/body.fuzz.test.ts
 */
// Always SQLite: the change watch below reads SQLite's own catalog and counters. The PostgreSQL run skips this file
// (its HTTP answers to bad bodies are the bad-input battery's, which runs on both engines).
// webhook URLs on loopback, and no DNS to check example.com; the email routes send through a local SMTP sink
const sink = await smtpSink();
// Jobs are not run in the background (wakeOnEnqueue: false): an email or delivery a request queues would otherwise
// be written while the next request's writes are being checked.
const t = await createTestApp({ db: openDatabase(':memory:'), webhookAllowPrivate: true, smtp: sink.smtp, wakeOnEnqueue: false });
const doc = (await t.call('GET', '/openapi.json')).json;

interface Operation {
  id: string;
  method: string;
  path: string;
  json?: JsonSchema;
  form?: JsonSchema;
  pathParams: { name: string; schema: JsonSchema }[];
  headerParams: { name: string; schema: JsonSchema }[];
  documented: Set<number>;
}

function operationsWithBody(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      const op = item[method];
      const content = resolve(op?.requestBody, doc).content ?? {};
      if (!op || (!content['application/json'] && !content['multipart/form-data'])) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: JsonSchema) => resolve(p, doc));
      const params = (where: string) =>
        parameters.filter((p) => p.in === where).map((p) => ({ name: p.name as string, schema: (p.schema ?? {}) as JsonSchema }));
      ops.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        json: content['application/json']?.schema,
        form: content['multipart/form-data']?.schema,
        pathParams: params('path'),
        headerParams: params('header'),
        documented: new Set(Object.keys(op.responses ?? {}).map(Number)),
      });
    }
  }
  return ops;
}
const OPERATIONS = operationsWithBody();

// ---------------------------------------------------------------------------------------------------------------
// What each route may write when it answers 2xx. Any write by a refused request is a partial write, except those
// refusedMayWrite lists.

const PAC_REJECTED = 'Rejected by the stamping provider';
const INVOICE_WRITES = [
  'cfdis',
  'cfdi_documents',
  'cfdi_relations',
  'cfdi_payment_documents',
  'cfdi_status_changes',
  'cfdi_stats',
  'series',
  'events',
  'webhook_deliveries',
  'jobs',
];
const OWNED: Record<string, string[]> = {
  registerTenant: ['tenants', 'users', 'refresh_tokens', 'login_addresses'],
  login: ['users', 'refresh_tokens', 'login_failures', 'login_addresses'],
  refreshSession: ['refresh_tokens'],
  logout: ['refresh_tokens'],
  createUser: ['users'],
  updateUser: ['users'],
  changePassword: ['users', 'refresh_tokens'],
  createApiKey: ['api_keys'],
  updateTenant: ['tenants', 'tenant_branding'], // accent_color lives beside the logo
  uploadTenantLogo: ['tenant_branding'],
  uploadCsd: ['csds'],
  putFiel: ['fiels'],
  uploadLista69b: ['sat_69b_lists', 'sat_69b_entries'],
  // Every file is answered (a document that is not a CFDI is stored invalid), with its event.
  uploadReceivedCfdis: ['received_cfdis', 'events', 'webhook_deliveries', 'jobs'],
  // The request and its job; the job (test mode: the simulator) may move the request and store what it found.
  createSatDownload: ['sat_downloads', 'sat_download_packages', 'sat_metadata', 'jobs'],
  putSatDownloadSync: ['sat_download_syncs'],
  createClient: ['clients'],
  updateClient: ['clients'],
  createSeries: ['series'],
  updateSeries: ['series'],
  issueCfdi: INVOICE_WRITES,
  validateCfdi: [], // a dry run: it must not write anything
  // The retención and its document, its folio's series, retencion.timbrada and its deliveries.
  issueRetencion: ['retenciones', 'retencion_documents', 'series', 'events', 'webhook_deliveries', 'jobs'],
  validateRetencion: [], // a dry run
  issueRetencionBatch: ['retenciones', 'retencion_documents', 'series', 'events', 'webhook_deliveries', 'jobs'], // each item as issueRetencion
  // vigente → cancelado with its cancelacion, the simulated SAT's record, retencion.cancelada and its deliveries.
  cancelRetencion: ['retenciones', 'sandbox_cancellations', 'events', 'webhook_deliveries', 'jobs'],
  emailRetencion: ['retencion_emails', 'email_budgets', 'jobs'],
  cancelCfdi: [
    'cfdis',
    'cfdi_cancellations',
    'cfdi_status_changes',
    'cfdi_stats',
    'cfdi_payment_documents',
    'sandbox_cancellations',
    'events',
    'webhook_deliveries',
    'jobs',
  ],
  createWebhook: ['webhooks'],
  updateWebhook: ['webhooks', 'jobs'], // resuming (estado ACTIVO) queues the paused deliveries
  rotateWebhookSecret: ['webhooks'],
  createReceipt: ['receipts', 'receipt_settings', 'events', 'webhook_deliveries', 'jobs'], // the automatic folio's counter; receipt.created
  invoiceReceipt: [...INVOICE_WRITES, 'receipts'],
  issueGlobalInvoice: [...INVOICE_WRITES, 'receipts'],
  updateReceiptSettings: ['receipt_settings'],
  invoicePortalTicket: [...INVOICE_WRITES, 'receipts', 'cfdi_emails'],
};
/** Written by every successful write, whatever its route: the audit trail (src/lib/audit.ts; not by dry runs). */
const EVERY_WRITE = ['audit_log'];
const READ_ONLY = new Set(['validateCfdi', 'validateRetencion']);

/**
 * Writes a refused request legitimately makes (each documented behaviour, not a leftover):
 * - api_keys.last_used_at: stamped when a key authenticates (at most once a minute), before the route is reached;
 * - idempotency_keys: with `Idempotency-Key`, the first answer — a 4xx too — is stored to be replayed (src/lib/idempotency.ts);
 * - login 401/429: the attempt is counted before the password is checked (login_failures): the point of the refusal;
 * - refresh 401: presenting an already-rotated refresh token revokes its whole login (reuse detection);
 * - issue 422 from the PAC: the invoice was sealed with its folio before the provider refused it, and is kept as
 *   `fallido` with event cfdi.fallido (docs/decisions.md, "Issuing flow"); validation refusals store nothing.
 */
function refusedMayWrite(op: Operation, change: TableChange, sentIdempotencyKey: boolean, res: Res): boolean {
  const table = ownerOf(change.table);
  if (table === 'api_keys' && change.maskedOnly) return true; // last_used_at: see the watch below
  if (table === 'idempotency_keys') return sentIdempotencyKey;
  if (op.id === 'issueCfdi' && res.status === 422 && res.json?.error?.message === PAC_REJECTED) return INVOICE_WRITES.includes(table);
  if (op.id === 'login' && table === 'login_failures') return res.status === 401 || res.status === 429;
  if (op.id === 'refreshSession' && table === 'refresh_tokens') return res.status === 401;
  return false;
}

// The watch fingerprints SQLite's own catalog and counters (sqlite_master, total_changes, TEMP triggers).
const watch = createDbWatch(sqliteConnection(t.db), {
  reference: ['catalog_entries'],
  masked: {
    // Authentication bookkeeping: the key's last use is stamped at most once a minute on any request, refused or not.
    api_keys: ['last_used_at'],
  },
});

// ---------------------------------------------------------------------------------------------------------------
// Fixtures: a fresh tenant per operation, with the resources its path params and bodies can name.

interface Fixture {
  token: () => string | undefined;
  params: Record<string, fc.Arbitrary<string>>;
  headers: Record<string, fc.Arbitrary<string>>;
  hints: Record<string, fc.Arbitrary<unknown>>;
  /** Bodies the server should accept (most of the time): generated bodies rarely pass every business rule. */
  seeds?: fc.Arbitrary<unknown>;
  numRuns: number;
  /** Run before each request, outside the measured window. */
  beforeRun?: () => Promise<void>;
  afterRun?: (req: Req, res: Res) => Promise<void>;
  /** Unknown (new) operations are fuzzed too, but cannot be required to reach a 2xx. */
  known: boolean;
}

interface Req {
  kind: string;
  params: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}
interface Res {
  status: number;
  json: any;
  text: string;
}

const PASSWORD = 'a-long-password-1';
const fakeId = (prefix: string) => `${prefix}_01jd2m3k4n5p6q7r8s9t0v1w2x`;
let catalogsSeeded = false;

/** A new tenant and its ADMIN, on a plan whose rate limit no run reaches. */
const newTenant = () => issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000 });

/** The same with a sandbox key and, unless told not to, its CSD. */
async function issuerWithKey({ csd = true } = {}) {
  const reg = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000, keys: ['test'], csd: csd ? ['test'] : [] });
  if (!catalogsSeeded) {
    // The SAT catalogs are copied into the database on the first lookup after start (src/catalogs/seed.ts): do it
    // here, so no fuzzed request pays for it and the reference tables stay constant from now on.
    expect((await t.call('GET', '/catalogos/productos-servicios?q=tornillo', { token: reg.key })).status).toBe(200);
    catalogsSeeded = true;
  }
  return reg;
}

async function mustCreate(method: string, path: string, token: string, body: unknown) {
  const res = await t.call(method, path, { token, body });
  if (res.status !== 201) throw new Error(`${method} ${path} failed: ${res.status} ${res.text}`);
  return res.json;
}

const RECEPTOR_RFCS = fc.constantFrom('ICV060329BY0', 'XAXX010101000', 'XEXX010101000', 'FUNK671228PH6', 'EKU9003173C9', 'OÑO120726RX3');
const pick = <T>(values: T[]) => fc.constantFrom(...values);
const freshEmail = fc.uuid().map((u) => `fuzz-${u.slice(0, 13)}@example.com`);

/** Value pools for invoice bodies: the tenant's real invoices, clients and series. */
async function invoiceFixture(key: string) {
  const pastFecha = () => localDateTime(new Date(t.clock.now.getTime() - 2 * 3600_000), '42501');
  const issued: { id: string; uuid: string }[] = [];
  const issue = async (body: Record<string, unknown>) => {
    const json = await mustCreate('POST', '/cfdis', key, body);
    issued.push({ id: json.id, uuid: json.uuid });
    return json.uuid as string;
  };
  const corpus = corpusResolver(issue, pastFecha);
  const seeds: unknown[] = [];
  for (const [, request] of [...CORPUS, ...EGRESOS, ...PAGOS, ...NOMINAS, ...TRASLADOS]) seeds.push(await corpus(request));
  const client = await mustCreate('POST', '/clients', key, ICV);
  await mustCreate('POST', '/series', key, { serie: 'FZ', descripcion: 'fuzz' });
  seeds.push({
    tipo: 'I',
    receptor_id: client.id,
    serie: 'FZ',
    conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'S', cantidad: 1, valor_unitario: '10' }],
  });
  return {
    seeds,
    issued,
    hints: {
      receptor_id: pick([client.id, fakeId('cli')]),
      serie: pick(['A', 'FZ', 'NOPE']),
      rfc: RECEPTOR_RFCS,
      uuid: pick(issued.map((i) => i.uuid)),
      uuids: fc.array(pick(issued.map((i) => i.uuid)), { minLength: 1, maxLength: 2 }),
      cfdi_id: pick(issued.map((i) => i.id)),
      fecha: fc.constant(pastFecha()),
      fecha_pago: fc.constant(pastFecha()),
      moneda: pick(['MXN', 'USD', 'XXX', 'EUR']),
      metodo_pago: pick(['PUE', 'PPD']),
      uso_cfdi: pick(['G03', 'CP01', 'CN01', 'S01']),
      regimen_fiscal: pick(['601', '605', '612', '616']),
    } as Record<string, fc.Arbitrary<unknown>>,
  };
}

async function fixtureFor(op: Operation): Promise<Fixture> {
  const base = { headers: {}, params: {}, hints: {}, numRuns: 80, known: true };
  const email = fc.oneof(fc.emailAddress(), freshEmail);
  switch (op.id) {
    case 'registerTenant': {
      const taken = (await issuer(t)).email;
      return {
        ...base,
        token: () => undefined,
        hints: { email: fc.oneof(email, fc.constant(taken)), regimen_fiscal: pick(['601', '612', '605']), codigo_postal: pick(['42501', '01000']) },
        seeds: fc.tuple(freshEmail, pick(Object.values(TENANTS))).map(([e, tenant]) => ({ email: e, password: PASSWORD, nombre: 'Fuzz', tenant })),
      };
    }
    case 'login': {
      const admin = await newTenant();
      const other = await admin.userWithRole('VIEWER');
      const emails = [admin.email, other.email];
      return {
        ...base,
        token: () => undefined,
        hints: { email: pick([...emails, admin.email.toUpperCase(), 'nobody@example.com']), password: pick([PASSWORD, other.password, 'wrong-password!']) },
        seeds: fc.constantFrom({ email: admin.email, password: PASSWORD }, { email: other.email, password: other.password }),
        // Five wrong passwords make the address wait: forget the failures before each run so a correct login can pass.
        beforeRun: () => t.exec(sql`delete from login_failures`),
      };
    }
    case 'refreshSession':
    case 'logout': {
      const admin = await newTenant();
      const tokens = [admin.refreshToken];
      for (let i = 0; i < 12; i++)
        tokens.push((await t.call('POST', '/auth/login', { body: { email: admin.email, password: admin.password } })).json.refresh_token);
      const token = pick([...tokens, 'rt_unknown', tokens[0]!.slice(0, -1)]);
      return { ...base, token: () => undefined, hints: { refresh_token: token }, seeds: token.map((refresh_token) => ({ refresh_token })) };
    }
    case 'createUser': {
      const admin = await newTenant();
      return {
        ...base,
        token: () => admin.token,
        hints: { email: fc.oneof(email, fc.constant(admin.email)) },
        seeds: fc.tuple(freshEmail, pick(['ADMIN', 'OPERATOR', 'VIEWER'])).map(([e, role]) => ({ email: e, password: PASSWORD, nombre: 'Fuzz', role })),
      };
    }
    case 'updateUser': {
      const admin = await newTenant();
      const operator = await admin.userWithRole('OPERATOR');
      const viewer = await admin.userWithRole('VIEWER');
      // Not the caller itself: demoting it would turn the rest of the run into 403s.
      return {
        ...base,
        token: () => admin.token,
        params: { id: pick([operator.id, viewer.id, fakeId('usr')]) },
        hints: { email: fc.oneof(email, pick([admin.email, operator.email])) },
        seeds: fc.oneof(
          fc.constant({ nombre: 'Renamed' }),
          pick(['OPERATOR', 'VIEWER', 'ADMIN']).map((role) => ({ role })),
          freshEmail.map((e) => ({ email: e })),
        ),
      };
    }
    case 'changePassword': {
      const admin = await newTenant();
      const target = await admin.userWithRole('OPERATOR');
      // The caller changes its own password too (current_password required); then it logs in again with the new one.
      const self = { token: admin.token, password: admin.password };
      return {
        ...base,
        token: () => self.token,
        params: { id: pick([admin.user.id, target.id, fakeId('usr')]) },
        hints: {
          current_password: fc.oneof(
            fc.nat().map(() => self.password),
            fc.constant('not-the-password'),
          ),
        },
        seeds: fc.nat().map(() => ({ current_password: self.password, new_password: `new-long-password-${Math.random().toString(36).slice(2, 8)}` })),
        afterRun: async (req, res) => {
          if (res.status !== 204 || req.params.id !== admin.user.id) return;
          self.password = (req.body as { new_password: string }).new_password;
          const login = await t.call('POST', '/auth/login', { body: { email: admin.email, password: self.password } });
          expect(login.status).toBe(200);
          self.token = login.json.access_token;
        },
      };
    }
    case 'createApiKey': {
      const admin = await newTenant();
      return { ...base, token: () => admin.token, seeds: fc.constantFrom({ name: 'ERP' }, { name: 'Live', environment: 'live' }) };
    }
    case 'updateTenant': {
      const admin = await newTenant();
      return {
        ...base,
        token: () => admin.token,
        hints: { regimen_fiscal: pick(['601', '612', '605', '616']), codigo_postal: pick(['42501', '01000', '99999']) },
        seeds: fc.constantFrom(
          { nombre: 'ESCUELA KEMPER URGATE' },
          { regimen_fiscal: '601', codigo_postal: '42501' },
          { accent_color: null },
          { accent_color: '#1F4E8C' },
        ),
      };
    }
    case 'uploadTenantLogo': {
      const admin = await newTenant();
      const png = readFileSync(join(import.meta.dir, '..', 'fixtures', 'branding', 'logo.png'));
      const jpg = readFileSync(join(import.meta.dir, '..', 'fixtures', 'branding', 'logo.jpg'));
      const files = [
        png,
        jpg,
        png.subarray(0, 60),
        png.subarray(0, 40),
        jpg.subarray(0, 300),
        Buffer.concat([png.subarray(0, 8), Buffer.from('garbage')]),
        Buffer.from([0xff, 0xd8, 0xff, 0]),
      ];
      return {
        ...base,
        token: () => admin.token,
        hints: { logo: pick(files.map((f) => new Uint8Array(f))) },
        seeds: fc.constantFrom({ logo: new Uint8Array(png) }, { logo: new Uint8Array(jpg) }),
      };
    }
    case 'uploadCsd': {
      const { key, tenant } = await issuerWithKey({ csd: false });
      let run = 0;
      const eku = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
      const funk = csdFiles('FUNK671228PH6_CSD', 'FUNK671228PH6');
      const bytes = (b: Buffer) => new Uint8Array(b);
      return {
        ...base,
        token: () => key,
        numRuns: 60,
        hints: {
          cer: pick([bytes(eku.cer), bytes(funk.cer), bytes(eku.key), bytes(eku.cer.subarray(0, 100))]),
          key: pick([bytes(eku.key), bytes(funk.key), bytes(eku.cer), bytes(eku.key.subarray(0, 100))]),
          password: pick([eku.password, funk.password, 'wrong-password']),
        },
        seeds: fc.constant({ cer: bytes(eku.cer), key: bytes(eku.key), password: eku.password }),
        // Every other run starts with no CSD, so the valid upload is accepted (201) as often as refused as a duplicate (409).
        beforeRun: async () => {
          if (run++ % 2 === 0) await t.exec(sql`delete from csds where tenant_id = ${tenant.id}`);
        },
      };
    }
    case 'putFiel': {
      const { key } = await issuerWithKey({ csd: false });
      const fiel = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');
      const csd = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
      const bytes = (b: Buffer) => new Uint8Array(b);
      // A PUT replaces: the valid upload is accepted whether or not one is stored (201, then 200).
      return {
        ...base,
        token: () => key,
        numRuns: 60,
        hints: {
          cer: pick([bytes(fiel.cer), bytes(csd.cer), bytes(fiel.key), bytes(fiel.cer.subarray(0, 100))]),
          key: pick([bytes(fiel.key), bytes(csd.key), bytes(fiel.cer), bytes(fiel.key.subarray(0, 100))]),
          password: pick([fiel.password, 'wrong-password']),
        },
        seeds: fc.constant({ cer: bytes(fiel.cer), key: bytes(fiel.key), password: fiel.password }),
      };
    }
    case 'uploadLista69b': {
      const { key } = await issuerWithKey({ csd: false });
      const text = (rows: string) => new TextEncoder().encode(`fecha\r\ntitulo\r\nNo,RFC,Nombre,Situación\r\n${rows}`);
      return {
        ...base,
        token: () => key,
        numRuns: 40,
        hints: {
          file: pick([
            text('1,FUZ900101AB1,UNO,Definitivo\r\n2,FUZ900101AB2,"DOS, SA",Presunto\r\n'),
            text('1,not-an-rfc,UNO,Definitivo\r\n'),
            text('1,FUZ900101AB3,UNO,Cancelado\r\n'),
            new Uint8Array([0xff, 0xfe, 0x00, 0x22, 0x0d]),
            new Uint8Array(0),
          ]),
        },
        seeds: fc.constant({ file: text('1,FUZ900101AB1,UNO,Definitivo\r\n') }),
      };
    }
    case 'uploadReceivedCfdis': {
      // SAT's stamped sample (another receptor: stored invalid), whole or cut short; any field names.
      const { key } = await issuerWithKey({ csd: false });
      const sample = new Uint8Array(readFileSync(join(import.meta.dir, '..', 'fixtures', 'sat', 'samples', 'cfdi40-ingreso-iva-sandbox-EKU.xml')));
      return {
        ...base,
        token: () => key,
        numRuns: 40,
        seeds: fc.constantFrom({ file: sample }, { factura: sample, otra: sample.subarray(0, 200) }),
      };
    }
    case 'createSatDownload': {
      const { key } = await issuerWithKey({ csd: false });
      const fiel = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');
      expect((await t.call('PUT', '/fiel', { token: key, raw: csdForm(fiel) })).status).toBe(201);
      let second = 0;
      const day = fc.integer({ min: 1, max: 28 }).map((d) => `2025-02-${String(d).padStart(2, '0')}`);
      return {
        ...base,
        token: () => key,
        hints: {
          direction: pick(['received', 'issued', 'both']),
          kind: pick(['xml', 'metadata', 'pdf']),
          desde: fc.oneof(day, pick(['2019-01-01', '2025-13-01', '2025-02-01T00:00:00'])),
          hasta: fc.oneof(day, pick(['2025-01-01', '2025-02-28T23:59:59'])),
          tipo: pick(['I', 'E', 'P', 'X']),
          rfc: pick(['ICV060329BY0', 'ICV060329BY0,XAXX010101000', 'nope']),
        },
        // Each seed a new period (one second more), so SAT's twice-per-period rule refuses none of them.
        seeds: fc.nat().map(() => ({
          direction: 'received',
          kind: 'xml',
          desde: `2025-01-01T00:00:${String(second++ % 60).padStart(2, '0')}`,
          hasta: `2025-01-${String(2 + Math.floor(second / 60)).padStart(2, '0')}`,
        })),
      };
    }
    case 'putSatDownloadSync': {
      const { key } = await issuerWithKey({ csd: false });
      return { ...base, token: () => key, seeds: fc.constantFrom({ enabled: true }, { enabled: false }) };
    }
    case 'createClient':
    case 'updateClient': {
      const { key } = await issuerWithKey();
      const clients = [
        await mustCreate('POST', '/clients', key, ICV),
        await mustCreate('POST', '/clients', key, {
          rfc: 'XEXX010101000',
          nombre: 'ACME INC',
          regimen_fiscal: '616',
          domicilio_fiscal: '42501',
          uso_cfdi: 'S01',
          residencia_fiscal: 'USA',
          num_reg_id_trib: '123456789',
        }),
      ];
      return {
        ...base,
        token: () => key,
        params: { id: pick([...clients.map((c) => c.id as string), fakeId('cli')]) },
        hints: {
          rfc: RECEPTOR_RFCS,
          regimen_fiscal: pick(['601', '612', '616']),
          uso_cfdi: pick(['G03', 'S01', 'D01']),
          residencia_fiscal: pick(['USA', 'MEX', 'CAN']),
          email: email,
        },
        seeds:
          op.id === 'createClient'
            ? fc.constantFrom(ICV, { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' })
            : fc.constantFrom({ nombre: 'INMOBILIARIA CVA' }, { email: null }, { email: 'pagos@example.com' }, { uso_cfdi: 'G01' }),
      };
    }
    case 'createSeries':
    case 'updateSeries': {
      const { key } = await issuerWithKey();
      const series = [await mustCreate('POST', '/series', key, { serie: 'A' }), await mustCreate('POST', '/series', key, { serie: 'B', folio_inicial: 100 })];
      return {
        ...base,
        token: () => key,
        params: { id: pick([...series.map((s) => s.id as string), fakeId('ser')]) },
        hints: { serie: fc.oneof(fc.stringMatching(/^[A-Z]{1,6}$/), pick(['A', 'B', 'a|b'])) },
        seeds:
          op.id === 'createSeries'
            ? fc.stringMatching(/^[A-Z]{2,8}$/).map((serie) => ({ serie }))
            : fc.constantFrom({ descripcion: 'x' }, { descripcion: null }, { default: true }, { folio_inicial: 5000 }),
      };
    }
    case 'issueCfdi':
    case 'validateCfdi': {
      const { key } = await issuerWithKey();
      const inv = await invoiceFixture(key);
      return {
        ...base,
        token: () => key,
        numRuns: 200,
        hints: inv.hints,
        seeds: pick(inv.seeds),
        // pac_slow is left out: it answers after 600 ms and stamps after the answer (a write outside the request).
        headers:
          op.id === 'issueCfdi'
            ? { 'x-sandbox-scenario': pick(['pac_unavailable', 'pac_rejected', 'nonsense']), 'idempotency-key': pick(['fuzz-1', 'fuzz-2']) }
            : {},
      };
    }
    case 'issueRetencion':
    case 'validateRetencion': {
      const { key } = await issuerWithKey();
      return {
        ...base,
        token: () => key,
        numRuns: 120,
        hints: {
          cve_retenc: pick(['05', '14', '18', '25', '26', '29', '5']),
          mes_ini: pick(['01', '10', '11', '12', '13', '00']),
          mes_fin: pick(['01', '10', '11', '12', '13']),
          ejercicio: pick(['2025', '2026', '2028', '2019', '26']),
          fecha_exp: pick(['2026-11-27T10:00:00', '2026-02-30T10:00:00', 'ayer']),
          rfc: pick(['FUNK671228PH6', 'ICV060329BY0', 'XAXX010101000', 'not-an-rfc']),
          domicilio_fiscal: pick(['01000', '42501', '00000']),
          serie: pick(['A', 'NOPE', 'R-1']),
          tipo_pago_ret: pick(['01', '02', '05']),
          impuesto_ret: pick(['001', '002', '004']),
        },
        seeds: fc.constantFrom(...Object.values(RetencionExamples).map((e) => e.value)),
        headers: op.id === 'issueRetencion' ? { 'idempotency-key': pick(['fuzz-1', 'fuzz-2']) } : {},
      };
    }
    case 'issueRetencionBatch': {
      const { key } = await issuerWithKey();
      const items = Object.values(RetencionExamples).map((e, i) => ({ idempotency_key: `fuzz-item-${i}`, ...e.value }));
      return {
        ...base,
        token: () => key,
        numRuns: 80,
        hints: {
          idempotency_key: pick(['fuzz-item-0', 'fuzz-item-1', 'x'.repeat(256), '']),
          cve_retenc: pick(['05', '14', '26', '29']),
          rfc: pick(['FUNK671228PH6', 'XIQB891116QE4', 'not-an-rfc']),
          tipo_pago_ret: pick(['01', '03', '04', '05']),
        },
        seeds: fc.oneof(
          fc.constantFrom(RetencionBatchExamples.retencion_batch_plataformas.value),
          fc.subarray(items, { minLength: 1 }).map((chosen) => ({ items: chosen })),
        ),
        headers: { 'idempotency-key': pick(['fuzz-1', 'fuzz-2']) },
      };
    }
    case 'cancelRetencion':
    case 'emailRetencion': {
      const reg = await issuerWithKey();
      const retencion = () => structuredClone(RetencionExamples.retencion_arrendamiento.value);
      const issued: { id: string; uuid: string }[] = [];
      for (let i = 0; i < 3; i++) issued.push(await mustCreate('POST', '/retenciones', reg.key, retencion()));
      // A replacement of the first (motivo 01 names it).
      const replacement = await mustCreate('POST', '/retenciones', reg.key, {
        ...retencion(),
        cfdi_reten_relacionados: { tipo_relacion: '04', uuid: issued[0]!.uuid },
      });
      const refs = issued.flatMap((r) => [r.id, r.uuid, r.uuid.toLowerCase()]);
      return {
        ...base,
        token: () => reg.key,
        numRuns: 60,
        params: { id: pick([...refs, fakeId('ret'), '6a1c43b6-4f7d-4c55-9c0e-2f1a7b3d9e10']) },
        headers: { 'idempotency-key': pick(['fuzz-1', 'fuzz-2']) },
        hints: { folio_sustitucion: pick([replacement.uuid, issued[1]!.uuid]), to: pick([[reg.email], ['nobody@example.com']]) },
        seeds:
          op.id === 'cancelRetencion'
            ? fc.oneof(
                pick(['02', '03', '04']).map((motivo) => ({ motivo })),
                fc.constant({ motivo: '01', folio_sustitucion: replacement.uuid }),
              )
            : fc.constant({ to: [reg.email] }),
      };
    }
    case 'cancelCfdi': {
      const { key } = await issuerWithKey();
      const inv = await invoiceFixture(key);
      const refs = inv.issued.flatMap((i) => [i.id, i.uuid]);
      return {
        ...base,
        token: () => key,
        numRuns: 80,
        hints: { folio_sustitucion: pick(inv.issued.map((i) => i.uuid)) },
        params: { id: pick([...refs, fakeId('cfdi'), '6a1c43b6-4f7d-4c55-9c0e-2f1a7b3d9e10']) },
        headers: {
          'x-sandbox-scenario': pick(['cancel_pending_accept', 'cancel_rejected', 'cancel_expired', 'nonsense']),
          'idempotency-key': pick(['fuzz-1', 'fuzz-2']),
        },
        seeds: fc.oneof(
          pick(['02', '03', '04']).map((motivo) => ({ motivo })),
          pick(inv.issued.map((i) => i.uuid)).map((folio_sustitucion) => ({ motivo: '01', folio_sustitucion })),
        ),
      };
    }
    case 'createReceipt':
    case 'invoiceReceipt':
    case 'issueGlobalInvoice':
    case 'updateReceiptSettings': {
      const { key } = await issuerWithKey();
      const iva = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
      const ticket = {
        forma_pago: '01',
        conceptos: [{ clave_prod_serv: '50192100', cantidad: '2', clave_unidad: 'H87', descripcion: 'Botana', valor_unitario: '17.24', impuestos: iva }],
      };
      const made = [await mustCreate('POST', '/receipts', key, ticket), await mustCreate('POST', '/receipts', key, ticket)];
      const day = made[0].fecha.slice(0, 10) as string;
      return {
        ...base,
        token: () => key,
        numRuns: 60,
        params: { id: pick([...made.map((r) => r.id as string), fakeId('rcpt')]) },
        hints: {
          rfc: RECEPTOR_RFCS,
          regimen_fiscal: pick(['601', '612', '616']),
          uso_cfdi: pick(['G03', 'S01', 'D01']),
          forma_pago: pick(['01', '03', '99', '1']),
          periodicidad: pick(['01', '02', '04', '05', '07']),
          desde: pick([day, '2026-02-30', '0000-00-00', '2026-13-01']),
          hasta: pick([day, '2025-01-01']),
          meses: pick(['01', '11', '13', '']),
        },
        seeds: {
          createReceipt: fc.constant(ticket),
          invoiceReceipt: fc.constant({ receptor: ICV }),
          issueGlobalInvoice: fc.constant({ periodicidad: '01', desde: day, hasta: day }),
          updateReceiptSettings: fc.constantFrom({ auto_global_invoice: '04' }, { auto_global_invoice: null }),
        }[op.id as 'createReceipt'],
      };
    }
    case 'invoicePortalTicket': {
      // Open tickets to invoice (an accepted body uses one up), by their printed keys; the portal takes no credential.
      const { key, tenant } = await issuerWithKey();
      const iva = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
      const ticket = {
        forma_pago: '01',
        conceptos: [{ clave_prod_serv: '50192100', cantidad: '1', clave_unidad: 'H87', descripcion: 'B', valor_unitario: '10', impuestos: iva }],
      };
      const keys: string[] = [];
      for (let i = 0; i < 40; i++) keys.push(new URL((await mustCreate('POST', '/receipts', key, ticket)).self_invoice_url).searchParams.get('clave')!);
      return {
        ...base,
        token: () => undefined,
        numRuns: 60,
        params: { tenant_id: pick([tenant.id, fakeId('ten')]) },
        hints: {
          clave: pick([...keys, '0000000000000000000000000Z', 'x']),
          rfc: RECEPTOR_RFCS,
          regimen_fiscal: pick(['601', '612', '616']),
          uso_cfdi: pick(['G03', 'S01', 'D01']),
          email: email,
        },
        seeds: pick(keys).map((clave) => ({ clave, receptor: ICV })),
      };
    }
    case 'createWebhook':
    case 'updateWebhook':
    case 'rotateWebhookSecret': {
      const { key } = await issuerWithKey();
      const hooks = [
        await mustCreate('POST', '/webhooks', key, { url: 'https://example.com/a', events: ['*'] }),
        await mustCreate('POST', '/webhooks', key, { url: 'http://localhost:9/b', events: ['cfdi.timbrado'] }),
      ];
      return {
        ...base,
        token: () => key,
        params: { id: pick([...hooks.map((h) => h.id as string), '6a1c43b6-4f7d-4c55-9c0e-2f1a7b3d9e10']) },
        hints: {
          url: fc.oneof(
            fc.webUrl(),
            pick(['https://example.com/hook', 'ftp://example.com/x', 'https://user:pw@example.com/', 'javascript:alert(1)', 'http://[::1]/']),
          ),
        },
        seeds:
          op.id === 'createWebhook'
            ? fc.constantFrom({ url: 'https://example.com/hook', events: ['*'] }, { url: 'https://example.com/x', events: ['cfdi.timbrado', 'cfdi.cancelado'] })
            : op.id === 'rotateWebhookSecret'
              ? fc.constantFrom({}, { expire_previous_in_hours: 0 }, { expire_previous_in_hours: 24 }, { expire_previous_in_hours: 72 })
              : fc.constantFrom({ estado: 'ACTIVO' }, { estado: 'PAUSADO' }, { events: ['csd.vencido'] }, { url: 'https://example.com/new' }),
      };
    }
    default: {
      // A route this file does not know yet: the credential its group takes, params from their own schemas.
      const { token, key } = await issuerWithKey();
      const group = op.path.split('/')[3];
      const arbs = createSchemaArbitraries({ doc });
      return {
        ...base,
        known: false,
        numRuns: 40,
        token: () => (group === 'auth' ? undefined : ['users', 'api-keys', 'tenants'].includes(group ?? '') ? token : key),
        params: Object.fromEntries(op.pathParams.map((p) => [p.name, arbs.validValue(p.schema).map(String)])),
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Requests: generated from the schema, sent, and checked.

function requestArbitrary(op: Operation, fx: Fixture): fc.Arbitrary<Req> {
  const schema = (op.json ?? op.form)!;
  const arbs = createSchemaArbitraries({ doc, hints: fx.hints });
  const bodies: fc.WeightedArbitrary<{ kind: string; body: unknown }>[] = [
    { weight: 3, arbitrary: arbs.validValue(schema).map((body) => ({ kind: 'schema-valid', body })) },
    { weight: 3, arbitrary: arbs.mixedValue(schema, 2).map((body) => ({ kind: 'mixed', body })) },
    { weight: 2, arbitrary: arbs.nearMiss(schema).map((body) => ({ kind: 'near-miss', body })) },
  ];
  if (fx.seeds) {
    bodies.push({ weight: 3, arbitrary: fx.seeds.map((body) => ({ kind: 'seed', body })) });
    bodies.push({ weight: 4, arbitrary: fx.seeds.chain((s) => arbs.mutateAt(schema, s)).map((body) => ({ kind: 'seed-mutated', body })) });
  }
  return fc
    .record({
      body: fc.oneof(...bodies),
      params: fc.record(fx.params),
      // Each header is sent a fifth of the time.
      headers: fc.record(
        Object.fromEntries(
          Object.entries(fx.headers).map(([k, a]) => [k, fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: a, weight: 1 })]),
        ) as Record<string, fc.Arbitrary<string | undefined>>,
      ),
    })
    .map(({ body, params, headers }) => ({
      kind: body.kind,
      body: body.body,
      params,
      headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>,
    }));
}

function urlOf(op: Operation, params: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? 'missing'));
}

/** A generated form body (an object of field → value) as multipart: bytes as files, the rest as text. */
function toForm(body: unknown): FormData | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return JSON.stringify(body);
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v instanceof Uint8Array) form.append(name, new Blob([new Uint8Array(v)]), `${name}.bin`);
      else form.append(name, typeof v === 'string' ? v : JSON.stringify(v));
    }
  }
  return form;
}

async function send(op: Operation, fx: Fixture, req: Req): Promise<Res> {
  const token = fx.token();
  if (op.json) return t.call(op.method, urlOf(op, req.params), { token, body: req.body, headers: req.headers });
  const form = toForm(req.body);
  const headers = typeof form === 'string' ? { ...req.headers, 'content-type': 'multipart/form-data; boundary=x' } : req.headers;
  return t.call(op.method, urlOf(op, req.params), { token, raw: form, headers });
}

/** zod names an unrecognized key "" at the top level with the field "" (the key's own name). */
const emptyKeySent = (body: unknown) => !!body && typeof body === 'object' && Object.hasOwn(body, '');

/** `sqlite_sequence(t)` (an AUTOINCREMENT counter) belongs to table t. */
const ownerOf = (table: string) => /^sqlite_sequence\((.+)\)$/.exec(table)?.[1] ?? table;

/** Top-level names a validation error may point at: the schema's properties, what was sent, params, headers. */
function nameable(op: Operation, req: Req): Set<string> {
  const s = resolve(op.json ?? op.form, doc);
  const names = new Set<string>(['body', ...Object.keys(s.properties ?? {}), ...op.pathParams.map((p) => p.name), ...op.headerParams.map((p) => p.name)]);
  if (req.body && typeof req.body === 'object' && !Array.isArray(req.body)) for (const k of Object.keys(req.body)) names.add(k);
  return names;
}

interface Stats {
  statuses: Map<number, number>;
  kinds: Map<string, number>;
  written: Set<string>;
}

async function check(op: Operation, fx: Fixture, req: Req, stats: Stats, sabotage?: (res: Res) => Promise<void>): Promise<void> {
  await fx.beforeRun?.();
  watch.sync();
  const res = await send(op, fx, req);
  await sabotage?.(res);
  const changes = watch.diff();
  const where = `${op.method} ${urlOf(op, req.params)} → ${res.status} ${res.text.slice(0, 300)}`;
  stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
  const kind = `${req.kind}:${res.status < 300 ? '2xx' : '4xx'}`;
  stats.kinds.set(kind, (stats.kinds.get(kind) ?? 0) + 1);

  // (1) No 5xx; only documented statuses.
  if (res.status >= 500) throw new Error(`server error: ${where}`);
  if (!op.documented.has(res.status)) throw new Error(`undocumented status ${res.status} (documented: ${[...op.documented].join(', ')}): ${where}`);
  if (res.status >= 400) {
    // (2) The error envelope; input errors name the fields.
    const error = res.json?.error;
    if (error?.code !== `HTTP_${res.status}` || typeof error.message !== 'string' || !Array.isArray(error.details))
      throw new Error(`not the error envelope: ${where}`);
    if (res.text.includes('    at ')) throw new Error(`stack trace in the answer: ${where}`);
    if (res.status === 400 || res.status === 422) {
      if (error.details.length === 0) throw new Error(`input error without details: ${where}`);
      const names = nameable(op, req);
      for (const d of error.details) {
        if (typeof d.field !== 'string' || (!d.field && !emptyKeySent(req.body)) || typeof d.issue !== 'string' || !d.issue)
          throw new Error(`detail without field or issue: ${JSON.stringify(d)} in ${where}`);
        const root = d.field.split(/[.[,]/)[0]!;
        // A PAC rejection is about the provider's answer, not a field: its detail says `pac`.
        const subject = root === 'pac' && error.message === PAC_REJECTED;
        if (!names.has(root) && !subject) throw new Error(`detail names "${d.field}", which is neither in the schema nor in the request: ${where}`);
      }
    }
    // (3a) A refused request changes nothing.
    const leaked = changes.filter((c) => !refusedMayWrite(op, c, 'idempotency-key' in req.headers, res));
    if (leaked.length) throw new Error(`partial write: a refused request changed ${leaked.map((c) => c.table).join(', ')}: ${where}`);
  } else {
    // (3b) An accepted request writes only what its route owns.
    for (const c of changes) stats.written.add(c.table);
    const owned = new Set([
      ...(OWNED[op.id] ?? []),
      ...(READ_ONLY.has(op.id) ? [] : EVERY_WRITE),
      ...('idempotency-key' in req.headers ? ['idempotency_keys'] : []),
    ]);
    const stray = changes.filter((c) => !owned.has(ownerOf(c.table)) && !(c.maskedOnly && c.table === 'api_keys'));
    const declare = op.id in OWNED ? '' : ` (a new operation: declare its tables in OWNED)`;
    if (stray.length)
      throw new Error(
        `${op.id} wrote ${stray.map((c) => c.table).join(', ')}, outside the tables it owns (${[...owned].join(', ') || 'none'})${declare}: ${where}`,
      );
  }
  await fx.afterRun?.(req, res);
}

const runsFor = (fx: Fixture) => Number(process.env.FUZZ_RUNS ?? fx.numRuns);
const assertOptions = (fx: Fixture): fc.Parameters<[Req]> => ({
  numRuns: runsFor(fx),
  // Shrinking replays requests against a growing database: bound it, so a failure is reported inside the test's timeout.
  interruptAfterTimeLimit: 40_000,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH } : {}),
});

let referenceAtStart: Record<string, number> = {};
beforeAll(async () => {
  await issuerWithKey(); // seeds the catalogs
  referenceAtStart = watch.referenceWrites();
});
afterAll(() => sink.close());

describe.skipIf(TEST_ENGINE !== 'sqlite')('body fuzzing of every operation with a request body', () => {
  test('the walk finds every body of the document', () => {
    const ids = OPERATIONS.map((o) => o.id);
    // The document's operations with a body, at the time of writing; a new one is fuzzed with defaults.
    for (const id of Object.keys(OWNED)) expect(ids).toContain(id);
    const unknown = ids.filter((id) => !(id in OWNED));
    if (unknown.length) console.warn(`body-fuzz: fuzzing new operations with defaults (no seeds, no owned tables): ${unknown.join(', ')}`);
    for (const op of OPERATIONS) expect(op.documented.size).toBeGreaterThan(0);
  });

  test('the write checks fire: a refused request that writes, an accepted one writing elsewhere, a catalog write', async () => {
    const op = OPERATIONS.find((o) => o.id === 'createClient')!;
    const fx = await fixtureFor(op);
    const stats: Stats = { statuses: new Map(), kinds: new Map(), written: new Set() };
    const request = (body: unknown): Req => ({ kind: 'self-test', params: {}, headers: {}, body });
    const touchTenant = async (db: DbOrTx = t.db) => {
      await exec(db, sql`update tenants set nombre = nombre || '.' where id = (select max(id) from tenants)`);
    };
    await check(op, fx, request({}), stats);
    await check(op, fx, request(ICV), stats);
    await expect(check(op, fx, request({}), stats, () => touchTenant())).rejects.toThrow(/partial write: a refused request changed tenants/);
    await expect(check(op, fx, request(ICV), stats, () => touchTenant())).rejects.toThrow(/createClient wrote tenants, outside the tables it owns/);
    await expect(
      check(op, fx, request({}), stats, () => t.exec(sql`update catalog_entries set descripcion = descripcion where catalog = 'c_UsoCFDI' and clave = 'G03'`)),
    ).rejects.toThrow(/changed catalog_entries/);
    referenceAtStart = watch.referenceWrites();
    // A write rolled back is no write.
    await check(op, fx, request({}), stats, async () => {
      try {
        await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
          await touchTenant(tx);
          throw new Error('rolled back');
        });
      } catch {}
    });
    expect([...stats.statuses.keys()].sort()).toEqual([201, 400]);
  });

  for (const op of OPERATIONS) {
    if (process.env.FUZZ_ONLY && process.env.FUZZ_ONLY !== op.id) continue;
    test(`${op.id}: ${op.method} ${op.path} (${op.json ? 'JSON' : 'multipart'})`, async () => {
      const fx = await fixtureFor(op);
      const stats: Stats = { statuses: new Map(), kinds: new Map(), written: new Set() };
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op, fx), (req) => check(op, fx, req, stats)),
        assertOptions(fx),
      );
      const summary = [...stats.statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ');
      if (process.env.FUZZ_VERBOSE)
        console.log(`${op.id}: ${summary} | ${[...stats.kinds].map(([k, n]) => `${k}=${n}`).join(' ')} | wrote ${[...stats.written].join(', ')}`);
      if (process.env.FUZZ_RUNS || process.env.FUZZ_SEED || !fx.known) return;
      // Both sides of validation were reached: some bodies accepted, some refused.
      const accepted = [...stats.statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
      const refused = [...stats.statuses].filter(([s]) => s >= 400).reduce((n, [, c]) => n + c, 0);
      expect(accepted, `${op.id} never accepted a body: ${summary}`).toBeGreaterThan(0);
      expect(refused, `${op.id} never refused a body: ${summary}`).toBeGreaterThan(0);
    }, 60_000);
  }

  test('the reference tables (SAT catalogs) are as they were', () => {
    expect(watch.referenceWrites()).toEqual(referenceAtStart);
  });
});
