import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer, TENANTS } from '../helpers.ts';

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
});
