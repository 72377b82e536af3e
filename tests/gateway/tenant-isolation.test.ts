import { describe, expect, test } from 'bun:test';
import { createTestApp, ICV, issuer, READY, TENANTS } from '../helpers.ts';
import { openReceipt } from '../portal/receipts.ts';

const t = await createTestApp();

describe('tenant isolation', () => {
  test("tenant B never sees or changes tenant A's users, keys or profile", async () => {
    const a = await issuer(t);
    const b = await issuer(t, { tenant: TENANTS.FUNK });
    const aUser = await a.userWithRole('OPERATOR');
    const aKey = await a.createKey();
    const bKey = await b.createKey();

    for (const token of [b.token, bKey.key]) {
      const users = await t.call('GET', '/users', { token });
      expect(users.status).toBe(200);
      const ids = users.json.data.map((u: any) => u.id);
      expect(ids).not.toContain(a.user.id);
      expect(ids).not.toContain(aUser.id);
      expect((await t.call('GET', `/users/${aUser.id}`, { token })).status).toBe(404);
    }
    expect((await t.call('PATCH', `/users/${aUser.id}`, { token: b.token, body: { role: 'ADMIN' } })).status).toBe(404);
    expect((await t.call('POST', `/users/${aUser.id}/change-password`, { token: b.token, body: { new_password: 'hijacked-password' } })).status).toBe(404);
    expect((await t.call('DELETE', `/users/${aUser.id}`, { token: b.token })).status).toBe(404);
    expect((await t.call('DELETE', `/api-keys/${aKey.id}`, { token: b.token })).status).toBe(404);
    const bKeys = await t.call('GET', '/api-keys', { token: b.token });
    expect(bKeys.json.data.map((k: any) => k.id)).toEqual([bKey.id]);

    const bProfile = await t.call('PATCH', '/tenants/me', { token: b.token, body: { nombre: 'CAMBIADO' } });
    expect(bProfile.json.id).toBe(b.tenant.id);

    // A's data is untouched and A's credentials still work.
    const aMe = await t.call('GET', '/tenants/me', { token: aKey.key });
    expect(aMe.json.nombre).toBe('ESCUELA KEMPER URGATE');
    const aUserNow = await t.call('GET', `/users/${aUser.id}`, { token: a.token });
    expect(aUserNow.json.role).toBe('OPERATOR');
    expect((await t.call('GET', '/tenants/me', { token: aKey.key })).status).toBe(200);
  });

  test('a caller-supplied x-tenant-id (and other context headers) has no effect', async () => {
    const a = await issuer(t);
    const b = await issuer(t);
    const bKey = await b.createKey();
    const spoof = {
      'x-tenant-id': a.tenant.id,
      'x-actor-id': a.user.id,
      'x-actor-role': 'ADMIN',
      'x-actor-type': 'user',
      'x-gateway-token': 'guess',
    };
    const me = await t.call('GET', '/tenants/me', { token: bKey.key, headers: spoof });
    expect(me.json.id).toBe(b.tenant.id);
    const users = await t.call('GET', '/users', { token: b.token, headers: spoof });
    expect(users.json.data.map((u: any) => u.id)).toEqual([b.user.id]);
    const patched = await t.call('PATCH', '/tenants/me', { token: b.token, headers: spoof, body: { nombre: 'B NUEVO' } });
    expect(patched.json.id).toBe(b.tenant.id);
    expect((await t.call('GET', '/tenants/me', { token: a.token })).json.nombre).toBe('ESCUELA KEMPER URGATE');
    // Without a credential the spoofed headers do not authenticate anything.
    expect((await t.call('GET', '/tenants/me', { headers: spoof })).status).toBe(401);
  });

  test("the self-invoicing portal: A's portal never finds, invoices or hands out B's tickets", async () => {
    const a = await issuer(t, READY);
    const b = await issuer(t, { ...READY, tenant: TENANTS.FUNK });
    const theirs = await openReceipt(b);
    const receptor = { rfc: ICV.rfc, nombre: ICV.nombre, domicilio_fiscal: ICV.domicilio_fiscal, regimen_fiscal: '601', uso_cfdi: 'G03' };
    const at = (tenant: string, path = '') => `/portal/${tenant}${path}`;
    expect((await t.app.request(at(a.tenant.id, `/ticket?clave=${theirs.key}`))).status).toBe(404);
    const invoice = await t.app.request(at(a.tenant.id, '/ticket/invoice'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${b.key}` },
      body: JSON.stringify({ clave: theirs.key, receptor }),
    });
    expect(invoice.status).toBe(404);
    const page = await (await t.app.request(at(a.tenant.id, `?clave=${theirs.key}`), { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('ESCUELA KEMPER URGATE');
    expect(page).not.toContain(TENANTS.FUNK.nombre);
    // B's ticket is untouched: its own portal still invoices it.
    const own = await t.app.request(at(b.tenant.id, '/ticket/invoice'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clave: theirs.key, receptor }),
    });
    expect(own.status).toBe(201);
    const listed = await t.call('GET', '/cfdis', { token: a.key });
    expect(listed.json.data).toEqual([]);
  });
});
