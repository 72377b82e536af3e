import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../helpers.ts';

/**
 * GET /docs: the API reference page. Served whole by this process (no CDN), so it must render with the network off:
 * checked in process (only same-origin assets, right types), and in headless Chromium with every other host blocked
 * (page.browser.test.ts).
 */
const t = await createTestApp();

/** Every src/href of the page that is not a data: URL. */
const references = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'));

describe('GET /docs', () => {
  test('is an HTML page that references only same-origin assets, each served with its content type', async () => {
    const res = await t.app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(?:src|href)="\/\//); // protocol-relative
    const refs = references(html);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };
    for (const ref of refs) {
      expect(ref).toStartWith('/docs/assets/');
      const asset = await t.app.request(ref);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain(types[ref.slice(ref.lastIndexOf('.'))]!);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect((await asset.text()).length).toBeGreaterThan(10);
    }
  });

  test('an unknown asset is the usual 404 envelope', async () => {
    for (const path of ['/docs/assets/nope.js', '/docs/assets/constructor', '/docs/assets/../../package.json']) {
      const res = await t.app.request(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('HTTP_404');
    }
  });

  test('needs no credential and is rate-limited per address, like the OpenAPI document', async () => {
    const limited = await createTestApp({ anonymousRateLimit: 2 });
    expect((await limited.app.request('/docs')).status).toBe(200);
    expect((await limited.app.request('/docs')).status).toBe(200);
    const third = await limited.app.request('/docs');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBeTruthy();
  });
});
