import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer } from '../helpers.ts';

/** Every path of the OpenAPI document, every method it does not serve: 405 with an Allow header naming what it does. */
const t = await createTestApp();
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The document's paths are absolute (/api/v1/…, /docs). */
async function send(method: string, path: string, token: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  const withBody = method !== 'GET' && method !== 'DELETE' && method !== 'OPTIONS';
  if (withBody) headers['content-type'] = 'application/json';
  const res = await t.app.request(path, { method, headers, body: withBody ? '{}' : undefined });
  const text = await res.text();
  return { status: res.status, allow: res.headers.get('allow')?.split(', ').sort(), json: text ? JSON.parse(text) : undefined };
}

describe('405 Method Not Allowed', () => {
  test('every documented path answers each unserved method with 405 and Allow listing exactly its methods', async () => {
    // Enough requests for every path and method without meeting the rate limit.
    const reg = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000 });
    const doc = (await t.call('GET', '/openapi.json')).json;
    let checked = 0;
    for (const [template, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      const served = Object.keys(ops).map((m) => m.toUpperCase());
      const allow = [...served, ...(served.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort();
      // Any value fills a parameter: the answer depends on the path's shape, not on whether the resource exists.
      const path = template.replace(/\{\w+\}/g, 'x1');
      for (const method of METHODS.filter((m) => !(m in ops)).map((m) => m.toUpperCase())) {
        const res = await send(method, path, reg.token);
        const where = `${method} ${template}`;
        expect([where, res.status, res.allow]).toEqual([where, 405, allow]);
        expect(res.json.error.code).toBe('HTTP_405');
        checked++;
      }
      const options = await send('OPTIONS', path, reg.token);
      expect([`OPTIONS ${template}`, options.status, options.allow]).toEqual([`OPTIONS ${template}`, 204, allow]);
    }
    expect(checked).toBeGreaterThan(100);
  });

  test('a literal segment wins over a parameter: GET /cfdis/validate is 405, not "CFDI not found"', async () => {
    const reg = await issuer(t);
    const res = await t.call('GET', '/cfdis/validate', { token: reg.token });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.json.error.details).toEqual([{ field: 'method', issue: 'allowed: POST, OPTIONS' }]);
  });

  test('the credential is checked first: without one a protected path is 401 whatever the method', async () => {
    const res = await t.call('GET', '/cfdis/validate');
    expect(res.status).toBe(401);
    // Public paths need none, so they answer 405 straight away.
    const login = await t.call('GET', '/auth/login');
    expect(login.status).toBe(405);
    const health = await t.call('POST', '/health');
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('404 of a path without /api/v1', () => {
  const request = async (method: string, path: string) => {
    const res = await t.app.request(path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
    return { status: res.status, json: (await res.json()) as any };
  };

  test('a path naming a part of the API says where the API lives and the path it meant', async () => {
    for (const [method, path] of [
      ['GET', '/cfdis'],
      ['POST', '/auth/login'],
      ['GET', '/cfdis/cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x/pdf'],
      ['GET', '/health'],
      ['GET', '/openapi.json'],
    ] as const) {
      const res = await request(method, path);
      expect(res.status).toBe(404);
      expect(res.json.error.message).toBe(`Not found: the API lives under /api/v1 (did you mean ${method} /api/v1${path}?)`);
      expect(res.json.error.details).toEqual([{ field: 'path', issue: `no route ${path}: every API path starts with /api/v1` }]);
    }
  });

  test('other unknown paths, and the pages that live outside /api/v1, get no hint', async () => {
    for (const path of ['/nothing-here', '/api/v1/nothing-here', '/api/v2/cfdis', '/portal/ten_0000000000000000000000000/nothing/else/here', '/docs/nothing']) {
      const res = await request('GET', path);
      expect(res.status).toBe(404);
      expect(res.json.error.message).toBe('Route not found');
    }
    expect((await t.app.request('/docs')).status).toBe(200);
    expect((await t.app.request('/api/v1/health')).status).toBe(200);
  });
});
