import { Database } from 'bun:sqlite';
import { signIn } from '../console/sign-in.ts';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/lib/logger.ts';
import { DEMO_EMAIL, setUpDemo } from '../../src/demo.ts';
import { createTestApp, issuer, TEST_ENGINE } from '../helpers.ts';
import { eq } from 'drizzle-orm';
import { users } from '../../src/db/schema/index.ts';

/** DEMO=true on the real entry point: what it prints is what a person pastes, so the test uses exactly that. */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-demo-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i;

/** Starts `src/index.ts` with DEMO=true and collects all of stdout; `until` waits for some text to appear. */
function startDemo() {
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', JWT_SECRET: '', MASTER_KEY: '', DEMO: 'true' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  const pumping = (async () => {
    for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
  })();
  async function until(pattern: RegExp): Promise<RegExpMatchArray> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const m = out.match(pattern);
      if (m) return m;
      if (proc.exitCode !== null) break;
      await Bun.sleep(25);
    }
    throw new Error(`no ${pattern} in the output: ${out} ${await new Response(proc.stderr).text()}`);
  }
  return { proc, until, output: () => out, pumping };
}

async function stop(proc: Bun.Subprocess) {
  proc.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

// SQLite only: the demo runs on the embedded SQLite.
describe.skipIf(TEST_ENGINE !== 'sqlite')('DEMO=true', () => {
  test('on an empty DATA_DIR: prints the credentials and a curl that stamps; a restart creates nothing and still serves', async () => {
    const first = startDemo();
    let key: string, tenantId: string, base: string;
    try {
      const [, url, bearer, body] = await first.until(
        /^curl -X POST (http:\/\/\S+\/api\/v1\/cfdis) -H 'authorization: Bearer (sk_test_[\w-]+)' -H 'content-type: application\/json' -d '(.+)'$/m,
      );
      await first.until(/"msg":"listening"/);
      // The box comes last, once the server listens and the tenant exists: its curl works as soon as it is read.
      const boxAt = first.output().indexOf('Demo sandbox:');
      expect(first.output().indexOf('"msg":"demo tenant created"')).toBeLessThan(boxAt);
      expect(first.output().indexOf('"msg":"listening"')).toBeLessThan(boxAt);
      key = bearer!;
      base = url!.replace(/\/cfdis$/, '');
      const password = (await first.until(/^ {2}password {4}(\S+)$/m))[1]!;
      expect(first.output()).toContain(`admin user  ${DEMO_EMAIL}`);
      tenantId = JSON.parse((await first.until(/^.*"msg":"demo tenant created".*$/m))[0]).tenant_id;

      const stamped = await fetch(url!, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body! });
      expect(stamped.status).toBe(201);
      const cfdi: any = await stamped.json();
      expect(cfdi.uuid).toMatch(UUID);
      expect(cfdi.status).toBe('vigente');
      expect(cfdi.emisor.rfc).toBe('EKU9003173C9');

      // The line itself, through a shell, when curl is installed: what a person pastes.
      if (Bun.which('curl')) {
        const line = (await first.until(/^curl .*$/m))[0];
        const sh = Bun.spawnSync(['sh', '-c', `${line} -s`]);
        const viaCurl = JSON.parse(sh.stdout.toString());
        expect(viaCurl.uuid).toMatch(UUID);
        expect(viaCurl.status).toBe('vigente');
      }

      const login = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: DEMO_EMAIL, password }),
      });
      expect(login.status).toBe(200);

      // The console's address, printed with the credentials: its sign-in takes them.
      const consoleUrl = (await first.until(/^ {2}console {5}(\S+) /m))[1]!;
      expect(consoleUrl).toBe(`${new URL(base).origin}/console`);
      const http = { request: (path: string, init?: RequestInit) => fetch(path, { ...init, redirect: 'manual' }) };
      await signIn(http, DEMO_EMAIL, password, new URL(base).origin);
    } finally {
      await stop(first.proc);
    }

    const second = startDemo();
    try {
      const listening = JSON.parse((await second.until(/^.*"msg":"listening".*$/m))[0]);
      const exists = JSON.parse((await second.until(/^.*"msg":"demo tenant exists".*$/m))[0]);
      expect(exists.tenant_id).toBe(tenantId);
      expect((await second.until(/already exists/)).index).toBeGreaterThan(second.output().indexOf('"msg":"listening"'));
      expect(second.output()).not.toContain('demo tenant created');
      expect(second.output()).not.toContain('sk_test_'); // the key is not stored, so it cannot be shown again

      const api = `http://127.0.0.1:${listening.port}/api/v1`;
      const me = await fetch(`${api}/tenants/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await me.json()) as any).id).toBe(tenantId);
      const csds: any = await (await fetch(`${api}/csds`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(csds.data).toHaveLength(1);
    } finally {
      await stop(second.proc);
    }
    const db = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    try {
      expect(db.query('select count(*) as n from tenants').get()).toEqual({ n: 1 });
      expect(db.query('select count(*) as n from api_keys').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  }, 30_000);

  test('a database that already has tenants gets no demo tenant', async () => {
    const t = await createTestApp();
    await issuer(t);
    const demo = await setUpDemo({ app: t.app, db: t.db, logger: createLogger('silent') });
    expect(demo).toEqual({ state: 'skipped', tenants: 1 });
    expect(await t.count(users, eq(users.email, DEMO_EMAIL))).toBe(0);
  });
});

// On either engine: the set-up itself, through the app (its box and process are the test above).
describe('the demo set-up', () => {
  test('REGISTRATION=closed: the demo tenant is made all the same, and registration stays closed', async () => {
    const t = await createTestApp({ registration: 'closed' });
    const demo = await setUpDemo({ app: t.app, db: t.db, logger: createLogger('silent') });
    if (demo.state !== 'created') throw new Error(`demo ${demo.state}`);
    const me = await t.call('GET', '/tenants/me', { token: demo.apiKey });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ id: demo.tenantId, rfc: 'EKU9003173C9' });
    expect((await t.call('GET', '/csds', { token: demo.apiKey })).json.data).toHaveLength(1);
    const login = await t.call('POST', '/auth/login', { body: { email: DEMO_EMAIL, password: demo.password } });
    expect(login.status).toBe(200);
    const register = await t.call('POST', '/auth/register', {
      body: {
        email: 'other@example.com',
        password: 'another-password-1',
        nombre: 'Other',
        tenant: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', codigo_postal: '33826' },
      },
    });
    expect(register.status).toBe(403);
  });
});
