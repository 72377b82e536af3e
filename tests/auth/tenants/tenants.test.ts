import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { createTestApp, issuer } from '../../helpers.ts';

const t = await createTestApp();

describe('/tenants/me', () => {
  test('PATCH validates the régimen against the RFC and the postal code against the catalog; RFC is immutable', async () => {
    const reg = await issuer(t);
    const ok = await t.call('PATCH', '/tenants/me', { token: reg.token, body: { nombre: 'NUEVO NOMBRE', regimen_fiscal: '626', codigo_postal: '01000' } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ nombre: 'NUEVO NOMBRE', regimen_fiscal: '626', codigo_postal: '01000', rfc: 'EKU9003173C9' });
    expect(ok.json.updated_at >= ok.json.created_at).toBe(true);
    const fisica = await t.call('PATCH', '/tenants/me', { token: reg.token, body: { regimen_fiscal: '605' } });
    expect(fisica.status).toBe(422);
    expect(fisica.json.error.details[0].field).toBe('regimen_fiscal');
    expect((await t.call('PATCH', '/tenants/me', { token: reg.token, body: { codigo_postal: '00001' } })).status).toBe(422);
    expect((await t.call('PATCH', '/tenants/me', { token: reg.token, body: { rfc: 'AAA010101AAA' } })).status).toBe(422);
    expect((await t.call('GET', '/tenants/me', { token: reg.token })).json.regimen_fiscal).toBe('626');
  });

  test('an API key may update the profile (acts as ADMIN)', async () => {
    const reg = await issuer(t);
    const key = await reg.createKey();
    expect((await t.call('PATCH', '/tenants/me', { token: key.key, body: { nombre: 'VIA API KEY' } })).status).toBe(200);
  });

  test('GET shows every branding change at once: the profile read just before a change is not served after it', async () => {
    const reg = await issuer(t);
    const me = async () => (await t.call('GET', '/tenants/me', { token: reg.token })).json.branding;
    expect(await me()).toEqual({ accent_color: null, logo: null });
    const png = readFileSync(new URL('../../fixtures/branding/logo.png', import.meta.url));
    const form = new FormData();
    form.append('logo', new File([new Uint8Array(png)], 'logo.png'));
    const put = await t.app.request('/api/v1/tenants/me/logo', { method: 'PUT', headers: { authorization: `Bearer ${reg.token}` }, body: form });
    expect(put.status).toBe(200);
    const logo = { content_type: 'image/png', size: png.length, url: '/api/v1/tenants/me/logo' };
    expect(((await put.json()) as any).branding).toEqual({ accent_color: null, logo });
    expect(await me()).toEqual({ accent_color: null, logo });
    expect((await t.call('PATCH', '/tenants/me', { token: reg.token, body: { accent_color: '#00ff00' } })).status).toBe(200);
    expect(await me()).toEqual({ accent_color: '#00FF00', logo });
    const removed = await t.app.request('/api/v1/tenants/me/logo', { method: 'DELETE', headers: { authorization: `Bearer ${reg.token}` } });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as any).branding).toEqual({ accent_color: '#00FF00', logo: null });
    expect(await me()).toEqual({ accent_color: '#00FF00', logo: null });
  });
});
