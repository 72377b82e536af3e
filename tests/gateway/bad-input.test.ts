import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer, sqliteConnection, TEST_ENGINE } from '../helpers.ts';

/**
 * Hostile input on every documented route: each answer is a 4xx envelope (or a 2xx when the odd value is in
 * fact valid), never a 5xx, and afterwards the tenant's data and credentials are intact.
 */
const t = await createTestApp({ maxBodyBytes: 64 * 1024 });

const ODD_STRINGS = [
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  'Robert"); DELETE FROM tenants; --',
  '\u0000',
  'abc\u0007def',
  '\ud800',
  '\udfff lone low',
  '🧾 Ñandú pingüino ¿qué? ¡sí!',
  'e\u0301\u0301\u0301',
  '\u202eRTL override',
  'ＡＢＣ１２３',
  '   ',
  'x'.repeat(5000),
  '%00%27',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, as a plain string
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
];
// biome-ignore lint/correctness/noPrecisionLoss: a number too long for a double, on purpose
const ODD_VALUES: unknown[] = [null, true, 0, -1, 1e308, 123456789012345678901234567890, [], [1, 2], {}, { $gt: '' }, ...ODD_STRINGS];

interface Operation {
  method: string;
  path: string;
  bodyKeys: string[] | undefined;
  formKeys: string[] | undefined;
  query: boolean;
  /** The query parameters the operation declares. */
  queryNames: string[];
}

async function operations(): Promise<Operation[]> {
  const doc = (await t.call('GET', '/openapi.json')).json;
  const ops: Operation[] = [];
  const deref = (s: any) => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const schema = deref(op.requestBody?.content?.['application/json']?.schema);
      const form = deref(op.requestBody?.content?.['multipart/form-data']?.schema);
      ops.push({
        method: method.toUpperCase(),
        path,
        bodyKeys: schema ? Object.keys(schema.properties ?? {}) : undefined,
        formKeys: form ? Object.keys(form.properties ?? {}) : undefined,
        query: (op.parameters ?? []).some((p: any) => p.in === 'query'),
        queryNames: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
      });
    }
  }
  return ops;
}

const seen = new Map<number, number>();
function expectSafe(res: { status: number; json: any; text: string }, label: string) {
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  if (res.status >= 500) throw new Error(`${label} → ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 400) {
    expect(res.json?.error?.code).toBe(`HTTP_${res.status}`);
    expect(Array.isArray(res.json.error.details)).toBe(true);
    expect(res.text).not.toContain('    at ');
  }
}

describe('bad-input battery on every route', () => {
  test('malformed JSON, wrong types, missing fields, oversized bodies, odd unicode, SQL-looking strings', async () => {
    // A high enterprise limit, so every request below reaches validation instead of the rate limiter.
    const admin = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000 });
    const key = await admin.createKey();
    const victim = await admin.userWithRole('VIEWER');
    const before = (await t.call('GET', '/tenants/me', { token: admin.token })).json;
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(15);
    let requests = 0;

    for (const op of ops) {
      // Never fire the battery at the admin's own session-ending routes with valid ids.
      // Every path parameter gets the odd ids (a NUL among them: PostgreSQL refuses it in any text parameter).
      const ids = /\{\w+\}/.test(op.path)
        ? ["' OR 1=1 --", 'usr_00000000000000000000000000', '%00', '\u0000', 'a\u0000b', '..%2F..%2Fetc', 'ünï', 'x'.repeat(300)]
        : [''];
      for (const id of ids) {
        const path = op.path.replace(/\{\w+\}/g, encodeURIComponent(id));
        const send = async (opts: Parameters<typeof t.call>[2], label: string) => {
          requests++;
          expectSafe(await t.call(op.method, path, { token: admin.token, ...opts }), `${op.method} ${path} ${label}`);
        };
        if (op.method === 'GET' || op.method === 'DELETE') {
          await send({}, 'no body');
        }
        if (op.query) {
          for (const q of [
            'limit=abc',
            'limit=0',
            'limit=101',
            'limit=-5',
            'limit=1e3',
            'cursor=garbage',
            "cursor=' OR 1=1 --",
            'cursor=eyJhZnRlciI6MX0',
            'limit=20&limit=30',
          ]) {
            await send({ headers: {} }, q);
            requests++;
            expectSafe(await t.call(op.method, `${path}?${q}`, { token: admin.token }), `${op.method} ${path}?${q}`);
          }
          // Each declared query parameter with odd text (percent-encoded as sent: %ED%A0%80 is a lone surrogate's
          // bytes, not UTF-8), once per operation (not per odd id).
          if (id === ids[0])
            for (const name of op.queryNames)
              for (const value of ['%00', 'a%00b', '%27%20OR%20%271%27%3D%271', '%ED%A0%80', 'abc%07def', 'x'.repeat(5000), '%3Cscript%3E']) {
                requests++;
                const q = `${encodeURIComponent(name)}=${value}`;
                expectSafe(await t.call(op.method, `${path}?${q}`, { token: admin.token }), `${op.method} ${path}?${q.slice(0, 60)}`);
              }
        }
        if (op.formKeys) {
          const forms: [string, FormData][] = [['empty form', new FormData()]];
          for (const value of ODD_STRINGS) {
            const f = new FormData();
            for (const k of op.formKeys) f.append(k, value);
            forms.push([`all fields ${JSON.stringify(value).slice(0, 30)}`, f]);
            const g = new FormData();
            // Files where files go; text fields (a password) as text, so the file checks are reached.
            for (const k of op.formKeys) k === 'password' ? g.append(k, value) : g.append(k, new Blob([value]), `${value.slice(0, 20)}.bin`);
            forms.push([`all files ${JSON.stringify(value).slice(0, 30)}`, g]);
          }
          const dup = new FormData();
          for (const k of op.formKeys) {
            dup.append(k, new Blob(['a']));
            dup.append(k, new Blob(['b']));
          }
          forms.push(['duplicated fields', dup]);
          for (const [label, body] of forms) {
            requests++;
            const res = await t.app.request(path, { method: op.method, headers: { authorization: `Bearer ${admin.token}` }, body });
            const text = await res.text();
            if (process.env.DEBUG_BATTERY) console.log(op.method, path, label, res.status, text.slice(0, 150));
            expectSafe({ status: res.status, text, json: text ? JSON.parse(text) : undefined }, `${op.method} ${path} ${label}`);
          }
          await send({ body: { cer: 'x' } }, 'JSON to a multipart route');
          await send(
            { raw: '--xyz\r\nContent-Disposition: form-data; name="cer"\r\n\r\nbroken', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } },
            'truncated multipart',
          );
          await send({ raw: 'x'.repeat(70 * 1024), headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }, 'oversized multipart');
        }
        if (!op.bodyKeys) continue;
        const json = { 'content-type': 'application/json' };
        await send({ raw: '{"email": ', headers: json }, 'truncated JSON');
        await send({ raw: 'not json at all', headers: json }, 'not JSON');
        await send({ raw: '', headers: json }, 'empty body');
        await send({ raw: '{"a":1}', headers: { 'content-type': 'text/plain' } }, 'text/plain');
        await send({ raw: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), headers: json }, 'oversized');
        for (const body of [null, [], 'string', 42, {}, { unknown_field: 1 }]) await send({ body }, `body ${JSON.stringify(body)}`);
        for (const field of op.bodyKeys) {
          for (const value of ODD_VALUES) await send({ body: { [field]: value } }, `${field}=${JSON.stringify(value)?.slice(0, 40)}`);
        }
        // Deep nesting.
        let deep: any = {};
        for (let i = 0; i < 2000; i++) deep = { a: deep };
        await send({ body: deep }, 'deeply nested');
      }
    }
    expect(requests).toBeGreaterThan(500);
    console.log('bad-input battery statuses:', JSON.stringify(Object.fromEntries(seen)));
    expect(seen.get(429)).toBeUndefined();
    // The battery reached validation: most answers are input errors, and each kind appeared.
    for (const status of [400, 404, 413, 415, 422]) expect(seen.get(status) ?? 0).toBeGreaterThan(0);

    // Nothing was corrupted: the admin still logs in, the key works, the profile and the other user are intact.
    const login = await t.call('POST', '/auth/login', { body: { email: admin.email, password: admin.password } });
    expect(login.status).toBe(200);
    const after = await t.call('GET', '/tenants/me', { token: key.key });
    expect(after.status).toBe(200);
    expect(after.json.rfc).toBe(before.rfc);
    const v = await t.call('GET', `/users/${victim.id}`, { token: login.json.access_token });
    expect(v.json.role).toBe('VIEWER');
    // SQLite's own check of its file (PostgreSQL's pages are checked by its server).
    if (TEST_ENGINE === 'sqlite') expect(sqliteConnection(t.db).pragma('integrity_check', { simple: true })).toBe('ok');
  }, 120_000);

  test('odd but valid unicode is stored and returned exactly', async () => {
    const admin = await issuer(t);
    const nombre = "PINGÜINO & ÑANDÚ O'BRIEN; DROP TABLE tenants";
    const res = await t.call('PATCH', '/tenants/me', { token: admin.token, body: { nombre } });
    expect(res.status).toBe(200);
    expect((await t.call('GET', '/tenants/me', { token: admin.token })).json.nombre).toBe(nombre);
  });

  test('invalid input names the field and the problem', async () => {
    const res = await t.call('POST', '/auth/register', {
      body: { email: 'not-an-email', password: 'short', nombre: '', tenant: { rfc: 'ABC', nombre: 'X', regimen_fiscal: '601', codigo_postal: '1' } },
    });
    expect(res.status).toBe(422);
    const fields = res.json.error.details.map((d: any) => d.field).sort();
    expect(fields).toEqual(['email', 'nombre', 'password', 'tenant.codigo_postal', 'tenant.rfc']);
    for (const d of res.json.error.details) expect(d.issue.length).toBeGreaterThan(3);
  });

  test('malformed JSON is invalid input (422 on auth routes, 400 on invoice routes), a wrong content type 415, an oversized body 413', async () => {
    const malformed = await t.call('POST', '/auth/login', { raw: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    expect(malformed.json.error.code).toBe('HTTP_422');
    const wrongType = await t.call('POST', '/auth/login', { raw: '{}', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
    const big = await t.call('POST', '/auth/login', { raw: JSON.stringify({ email: 'x'.repeat(70 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    expect(big.json.error.details[0].field).toBe('body');
  });

  test('malformed JSON says where it broke', async () => {
    const admin = await issuer(t);
    const json = { 'content-type': 'application/json' };
    const invoice = await t.call('POST', '/cfdis/validate', { token: admin.token, raw: '{\n  "tipo": "I",\n  "serie": nope\n}', headers: json });
    expect(invoice.status).toBe(400);
    expect(invoice.json.error.details).toEqual([{ field: 'body', issue: 'malformed JSON at line 3, column 12 (offset 28): unexpected "nope"' }]);
    for (const path of ['/auth/login', '/users', '/api-keys', '/tenants/me']) {
      const res = await t.call(path === '/tenants/me' ? 'PATCH' : 'POST', path, { token: admin.token, raw: '{"nombre": "x",}', headers: json });
      expect([path, res.status, res.json.error.details]).toEqual([
        path,
        422,
        [{ field: 'body', issue: "malformed JSON at line 1, column 16 (offset 15): a trailing comma before '}'" }],
      ]);
    }
    const truncated = await t.call('POST', '/clients', { token: admin.token, raw: '{"rfc": ', headers: json });
    expect(truncated.json.error.details[0].issue).toBe('malformed JSON at line 1, column 9 (offset 8): unexpected end of input');
  });

  test('415 names the content type the route takes', async () => {
    const admin = await issuer(t);
    const json = await t.call('POST', '/clients', { token: admin.token, raw: 'rfc=X', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(json.status).toBe(415);
    expect(json.json.error.message).toBe('Unsupported media type: send Content-Type: application/json');
    expect(json.json.error.details).toEqual([
      { field: 'content-type', issue: 'application/x-www-form-urlencoded is not accepted; send Content-Type: application/json' },
    ]);
    const csd = await t.call('POST', '/csds', { token: admin.token, body: { cer: 'x' } });
    expect(csd.status).toBe(415);
    expect(csd.json.error.message).toBe('Unsupported media type: send Content-Type: multipart/form-data with fields cer, key, password');
    const logo = await t.call('PUT', '/tenants/me/logo', { token: admin.token, raw: 'x', headers: { 'content-type': 'image/png' } });
    expect(logo.status).toBe(415);
    expect(logo.json.error.message).toBe('Unsupported media type: send Content-Type: multipart/form-data with field logo');
    const doc = (await t.call('GET', '/openapi.json')).json;
    expect(doc.paths['/api/v1/csds'].post.responses['415'].description).toBe('Unsupported media type: send Content-Type: multipart/form-data');
    expect(doc.paths['/api/v1/clients'].post.responses['415'].description).toBe('Unsupported media type: send Content-Type: application/json');
  });
});
