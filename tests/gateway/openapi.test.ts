import { describe, expect, test } from 'bun:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createTestApp, issuer } from '../helpers.ts';

const t = await createTestApp();

/** Every method+path the running app serves, read from the routers (not from the document). */
export function servedOperations(): string[] {
  return [t.app, t.app.backends.auth, t.app.backends.invoices]
    .flatMap((app) => app.routes as { method: string; path: string }[])
    .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => `${r.method.toLowerCase()} ${r.path}`);
}

describe('OpenAPI document', () => {
  test('is OpenAPI 3.1 JSON with both security schemes', async () => {
    const res = await t.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.json.openapi).toBe('3.1.0');
    expect(Object.keys(res.json.components.securitySchemes).sort()).toEqual(['apiKey', 'bearerJwt']);
  });

  test('passes Redocly lint (recommended rules) with no errors or warnings', async () => {
    const res = await t.call('GET', '/openapi.json');
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license-strict': 'off' } });
    const problems = await lintFromString({ source: res.text, absoluteRef: '/openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error');
    const warnings = problems.filter((p) => p.severity !== 'error');
    if (warnings.length) console.warn(warnings.map((p) => `${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer}`).join('\n'));
    if (errors.length) console.error(errors.map((p) => `${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer}`).join('\n'));
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
  });

  test('lists every route the app serves', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json;
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    const served = servedOperations();
    expect(served.length).toBeGreaterThan(15);
    for (const op of served) expect(documented).toContain(op);
  });

  test('documents the headers the gateway adds, and answers carry them', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          const where = `${method} ${path} ${status}`;
          expect([where, response.headers?.['X-Request-Id']]).toEqual([where, { $ref: '#/components/headers/X-Request-Id' }]);
          expect([where, !!response.headers?.['X-RateLimit-Remaining']]).toEqual([where, true]);
          if (status === '429') expect([where, !!response.headers['Retry-After']]).toEqual([where, true]);
        }
      }
    }
    expect(Object.keys(doc.paths['/api/v1/cfdis'].post.responses['201'].headers)).toContain('Idempotent-Replayed');
    const reg = await issuer(t);
    const res = await t.call('GET', '/tenants/me', { token: reg.token });
    for (const h of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect([h, res.headers.get(h)]).not.toEqual([h, null]);
  });
});
