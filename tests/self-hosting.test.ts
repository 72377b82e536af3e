import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS, HELP, runCli } from '../src/cli.ts';
import { openDatabase } from '../src/db/client.ts';
import { loadConfig } from '../src/env.ts';
import { createTestApp, TENANTS } from './helpers.ts';
import pkg from '../package.json' with { type: 'json' };
import { tenants } from '../src/db/schema/index.ts';

/** The controls a self-hoster sets (issue 18, items 15 and 17): registration, CORS, the root path, the command line. */
const dir = () => mkdtempSync(join(tmpdir(), 'cfdi-selfhost-'));
const register = (email = `u-${crypto.randomUUID()}@example.com`) => ({ email, password: 'a-long-password-1', nombre: 'Ana López', tenant: TENANTS.EKU });
const flags = (email: string, over: string[] = []) => [
  'create-tenant',
  '--rfc',
  'EKU9003173C9',
  '--nombre',
  'ESCUELA KEMPER URGATE',
  '--regimen-fiscal',
  '601',
  '--codigo-postal',
  '42501',
  '--email',
  email,
  ...over,
];

describe('REGISTRATION', () => {
  test('open by default; closed → POST /auth/register is 403 with the envelope, whatever the body', async () => {
    expect(loadConfig({ DATA_DIR: dir() }).registration).toBe('open');
    expect(loadConfig({ DATA_DIR: dir(), REGISTRATION: 'closed' }).registration).toBe('closed');
    expect(() => loadConfig({ DATA_DIR: dir(), REGISTRATION: 'invite' })).toThrow('REGISTRATION');

    expect((await (await createTestApp()).call('POST', '/auth/register', { body: register() })).status).toBe(201);
    const closed = await createTestApp({ registration: 'closed' });
    for (const body of [register(), {}]) {
      const res = await closed.call('POST', '/auth/register', { body });
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'HTTP_403', message: 'Registration is closed on this server' });
      expect(res.json.error.details[0]).toMatchObject({ field: 'registration' });
    }
    expect(await closed.count(tenants)).toBe(0);
  });

  test('create-tenant: the operator creates a tenant and its ADMIN, who then logs in; the register checks apply', async () => {
    const dataDir = dir();
    const env = { DATA_DIR: dataDir, ADMIN_PASSWORD: 'a-long-password-1' };
    const made = await runCli(flags('Admin@Example.com', ['--admin-nombre', 'Ana López']), env);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.out)).toMatchObject({ rfc: 'EKU9003173C9', email: 'admin@example.com', role: 'ADMIN' });

    const db = openDatabase(join(dataDir, 'cfdi.sqlite'));
    const t = await createTestApp({ db, registration: 'closed' });
    const login = await t.call('POST', '/auth/login', { body: { email: 'admin@example.com', password: 'a-long-password-1' } });
    expect(login.status).toBe(200);
    expect(login.json.user).toMatchObject({ role: 'ADMIN', nombre: 'Ana López' });

    // Emails are unique per tenant, as on POST /auth/register: the same admin may own a second tenant.
    expect((await runCli(flags('admin@example.com'), env)).code).toBe(0);
    const badRfc = await runCli(
      flags('b@example.com').map((a) => (a === 'EKU9003173C9' ? 'EKU900317' : a)),
      env,
    );
    expect(badRfc.code).toBe(2);
    expect(badRfc.out).toStartWith('rfc: ');
    expect(await runCli(flags('c@example.com'), { ...env, ADMIN_PASSWORD: 'short' })).toMatchObject({ code: 2 });
    expect((await runCli(flags('d@example.com', ['--password', 'a-long-password-1']), env)).code).toBe(2); // never in argv
    expect(await t.count(tenants)).toBe(2);
  });

  test('create-tenant reads the password from stdin when ADMIN_PASSWORD is not set', async () => {
    const dataDir = dir();
    const proc = Bun.spawn([process.execPath, 'src/cli.ts', ...flags('stdin@example.com')], {
      env: { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD: undefined, JWT_SECRET: '', MASTER_KEY: '' },
      stdin: new TextEncoder().encode('a-long-password-2\n'),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await proc.exited).toBe(0);
    const t = await createTestApp({ db: openDatabase(join(dataDir, 'cfdi.sqlite')) });
    expect((await t.call('POST', '/auth/login', { body: { email: 'stdin@example.com', password: 'a-long-password-2' } })).status).toBe(200);
  });
});

describe('CORS_ORIGINS', () => {
  const preflight = {
    origin: 'https://app.example.com',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type',
  };

  test('not set: no CORS headers (a browser on another origin is refused)', async () => {
    expect(loadConfig({ DATA_DIR: dir() }).corsOrigins).toBeUndefined();
    const res = await (await createTestApp()).app.request('/api/v1/health', { headers: { origin: 'https://app.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('an allowed origin: preflight → 204 with the Access-Control headers, never 401; answers readable with their headers', async () => {
    expect(loadConfig({ DATA_DIR: dir(), CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(() => loadConfig({ DATA_DIR: dir(), CORS_ORIGINS: 'app.example.com' })).toThrow('CORS_ORIGINS');
    const t = await createTestApp({ corsOrigins: ['https://app.example.com', 'http://localhost:5173'] });
    const res = await t.app.request('/api/v1/cfdis', { method: 'OPTIONS', headers: preflight });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type');

    const answer = await t.app.request('/api/v1/tenants/me', { headers: { origin: 'https://app.example.com' } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-Request-Id');

    const stranger = await t.app.request('/api/v1/cfdis', { method: 'OPTIONS', headers: { ...preflight, origin: 'https://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('* allows any origin', async () => {
    const res = await (await createTestApp({ corsOrigins: ['*'] })).app.request('/api/v1/cfdis', { method: 'OPTIONS', headers: preflight });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('GET /', () => {
  test('a browser is sent to /docs; anything else gets JSON naming the reference, the OpenAPI document and the API', async () => {
    const t = await createTestApp();
    const browser = await t.app.request('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/docs');
    const res = await t.app.request('/');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ docs: '/docs', openapi: '/api/v1/openapi.json', api: '/api/v1', version: pkg.version });
  });
});

describe('the command line', () => {
  test('--help lists serve, healthcheck and every operator command, from the one table; --version prints the version', async () => {
    for (const arg of ['--help', '-h']) expect(await runCli([arg], {})).toEqual({ code: 0, out: HELP });
    for (const name of ['serve', 'healthcheck', ...Object.keys(COMMANDS)]) expect(HELP).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    expect(Object.keys(COMMANDS)).toEqual(expect.arrayContaining(['create-tenant', 'set-plan', 'jobs', 'backup', 'restore']));
    for (const arg of ['--version', '-v']) expect(await runCli([arg], {})).toEqual({ code: 0, out: pkg.version });
    expect((await runCli(['nope'], {})).code).toBe(2);
  });

  test('the executable entry (src/bin.ts) and npm run cli answer the same', () => {
    const help = Bun.spawnSync([process.execPath, 'src/bin.ts', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toBe(HELP + '\n');
    const version = Bun.spawnSync([process.execPath, 'src/bin.ts', '--version']);
    expect(version.stdout.toString()).toBe(pkg.version + '\n');
    const npm = Bun.spawnSync(['npm', 'run', '--silent', 'cli', '--', '--help']);
    expect(npm.exitCode).toBe(0);
    expect(npm.stdout.toString()).toBe(HELP + '\n');
  });
});
