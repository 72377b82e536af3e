import { count, eq } from 'drizzle-orm';
import { createPasswordHasher } from './auth/passwords.ts';
import { RegisterSchema } from './auth/session/schemas.ts';
import { createTenantWithAdmin } from './auth/session/service.ts';
import type { Db } from './db/client.ts';
import { tenants, users } from './db/schema/index.ts';
import { randomToken } from './lib/crypto.ts';
import type { Logger } from './lib/logger.ts';
// SAT's public test CSD of EKU9003173C9 (serial 30001000000500003416, valid until 2027-05-18, password 12345678a),
// byte-identical to tests/fixtures/csd/EKU9003173C9_CSD; provenance (eclipxe13/CfdiUtils, MIT) in tests/fixtures/sat/PROVENANCE.md.
// File imports so that `bun build --compile` embeds them.
import demoCer from './demo-csd/EKU9003173C9.cer' with { type: 'file' };
import demoKey from './demo-csd/EKU9003173C9.key' with { type: 'file' };

const DEMO_TENANT = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' };
export const DEMO_EMAIL = 'demo@example.com';
const CSD_PASSWORD = '12345678a';

/** The README's Ingreso: one service at $1,000 + IVA 16 % to another SAT test RFC. */
export const DEMO_INVOICE = {
  tipo: 'I',
  forma_pago: '03',
  receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
  conceptos: [
    {
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: 'Servicio',
      cantidad: 1,
      valor_unitario: 1000,
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
};

export type DemoSetUp =
  | { state: 'created'; tenantId: string; email: string; password: string; apiKey: string; csdSerial: string }
  | { state: 'exists'; tenantId: string; email: string }
  | { state: 'skipped'; tenants: number };

/** The demo could not be set up through the API: the message says where and what to do. */
export class DemoSetUpFailed extends Error {}

type App = { request(path: string, init?: RequestInit): Response | Promise<Response> };

/**
 * DEMO=true: on an empty database, the demo tenant and its admin as the create-tenant command makes them (so
 * REGISTRATION=closed does not stop the demo), then a sk_test_ key and the test CSD through the public API in process,
 * so every rule (validation, hashing, CSD checks, encryption) applies. Once: a database that has the demo admin is
 * left as it is, and one with other tenants is never given a demo tenant.
 */
export async function setUpDemo({ app, db, logger }: { app: App; db: Db; logger: Logger }): Promise<DemoSetUp> {
  const existing = (
    await db
      .select({ tenantId: users.tenantId, rfc: tenants.rfc })
      .from(users)
      .innerJoin(tenants, eq(tenants.id, users.tenantId))
      .where(eq(users.email, DEMO_EMAIL))
  )[0];
  if (existing?.rfc === DEMO_TENANT.rfc) {
    logger.info('demo tenant exists', { tenant_id: existing.tenantId, rfc: DEMO_TENANT.rfc });
    return { state: 'exists', tenantId: existing.tenantId, email: DEMO_EMAIL };
  }
  const tenantCount = (await db.select({ n: count() }).from(tenants))[0]!.n;
  if (tenantCount > 0) {
    logger.warn('demo skipped: the database already has tenants', { tenants: tenantCount });
    return { state: 'skipped', tenants: tenantCount };
  }

  const call = async <T>(path: string, init: RequestInit, token?: string, expected = 201): Promise<T> => {
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    const res = await app.request(`/api/v1${path}`, { ...init, headers });
    if (res.status !== expected)
      throw new DemoSetUpFailed(`Demo set-up failed at POST ${path}: ${res.status} ${await res.text()}\nStart again on an empty DATA_DIR.`);
    return (await res.json()) as T;
  };
  const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  const password = randomToken(12);
  const admin = RegisterSchema.parse({ email: DEMO_EMAIL, password, nombre: 'Demo Admin', tenant: DEMO_TENANT });
  const { tenant, user } = await createTenantWithAdmin(db, new Date(), admin, await createPasswordHasher().hash(password));
  const session = await call<{ access_token: string }>('/auth/login', json({ email: DEMO_EMAIL, password }), undefined, 200);
  const key = await call<{ key: string }>('/api-keys', json({ name: 'demo', environment: 'test' }), session.access_token);
  const form = new FormData();
  form.append('cer', new Blob([await Bun.file(demoCer).arrayBuffer()]), 'EKU9003173C9.cer');
  form.append('key', new Blob([await Bun.file(demoKey).arrayBuffer()]), 'EKU9003173C9.key');
  form.append('password', CSD_PASSWORD);
  const csd = await call<{ id: string; serial_number: string }>('/csds', { method: 'POST', body: form }, key.key);
  logger.info('demo tenant created', { tenant_id: tenant.id, rfc: DEMO_TENANT.rfc, csd_id: csd.id });
  return { state: 'created', tenantId: tenant.id, email: user.email, password, apiKey: key.key, csdSerial: csd.serial_number };
}

/** What a person reads at start: the credentials (the only time they are shown) and a curl that stamps an invoice. */
export function demoBanner(demo: DemoSetUp, serverUrl: URL | string): string {
  const api = new URL('/api/v1', serverUrl).href;
  const console = new URL('/console', serverUrl).href;
  const rule = '─'.repeat(72);
  if (demo.state === 'skipped') {
    return `\nDEMO=true: no demo tenant created, the database already has ${demo.tenants} tenant(s). Use an empty DATA_DIR for the demo.\n`;
  }
  if (demo.state === 'exists') {
    return [
      '',
      rule,
      `Demo tenant ${DEMO_TENANT.rfc} already exists (${demo.tenantId}); nothing was created.`,
      `Its password and API key were shown once, when it was created: only their hashes are stored.`,
      `Console: ${console} (sign in as ${demo.email} with that password).`,
      `A new key: log in as ${demo.email}, then create one with the access token:`,
      `  curl -X POST ${api}/auth/login -H 'content-type: application/json' -d '{"email":"${demo.email}","password":"<password>"}'`,
      `  curl -X POST ${api}/api-keys -H 'authorization: Bearer <access_token>' -H 'content-type: application/json' -d '{"name":"demo"}'`,
      `Lost the password as well? Start again on an empty DATA_DIR.`,
      rule,
      '',
    ].join('\n');
  }
  return [
    '',
    rule,
    `Demo sandbox: tenant ${DEMO_TENANT.rfc} ${DEMO_TENANT.nombre} (${demo.tenantId}), SAT test CSD ${demo.csdSerial}`,
    `  admin user  ${demo.email}`,
    `  password    ${demo.password}`,
    `  API key     ${demo.apiKey}`,
    `  console     ${console} (sign in with the admin user and password)`,
    'Shown only now: the password and the key are stored as hashes. Invoices are stamped by the sandbox (no fiscal value).',
    '',
    'Stamp an invoice (201 with its UUID):',
    `curl -X POST ${api}/cfdis -H 'authorization: Bearer ${demo.apiKey}' -H 'content-type: application/json' -d '${JSON.stringify(DEMO_INVOICE)}'`,
    rule,
    '',
  ].join('\n');
}
