import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer } from '../../helpers.ts';

const t = await createTestApp();
describe('/users', () => {
  test('ADMIN creates users with roles; duplicates → 409; non-ADMIN → 403', async () => {
    const reg = await issuer(t);
    const res = await t.call('POST', '/users', {
      token: reg.token,
      body: { email: 'Op@Example.com', password: 'operator-password', nombre: 'Op', role: 'OPERATOR' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ email: 'op@example.com', nombre: 'Op', role: 'OPERATOR', last_login_at: null });
    expect(res.json.id).toStartWith('usr_');
    expect(
      (await t.call('POST', '/users', { token: reg.token, body: { email: 'op@example.com', password: 'operator-password', nombre: 'Op', role: 'VIEWER' } }))
        .status,
    ).toBe(409);
    const op = await t.call('POST', '/auth/login', { body: { email: 'op@example.com', password: 'operator-password' } });
    expect(
      (
        await t.call('POST', '/users', {
          token: op.json.access_token,
          body: { email: 'x@example.com', password: 'operator-password', nombre: 'X', role: 'VIEWER' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await t.call('POST', '/users', { token: reg.token, body: { email: 'y@example.com', password: 'operator-password', nombre: 'Y', role: 'ROOT' } })).status,
    ).toBe(422);
  });

  test('list is paginated with an opaque cursor', async () => {
    const reg = await issuer(t);
    for (let i = 0; i < 4; i++) await reg.userWithRole('VIEWER');
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.call('GET', `/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: reg.token });
      expect(res.status).toBe(200);
      expect(res.json.pagination.limit).toBe(2);
      expect(res.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.json.data.map((u: any) => u.id));
      cursor = res.json.pagination.has_more ? res.json.pagination.next_cursor : undefined;
      if (!res.json.pagination.has_more) expect(res.json.pagination).not.toHaveProperty('next_cursor');
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect((await t.call('GET', '/users', { token: reg.token })).json.pagination.limit).toBe(20);
    expect((await t.call('GET', '/users?limit=101', { token: reg.token })).status).toBe(422);
    expect((await t.call('GET', '/users?cursor=nonsense', { token: reg.token })).status).toBe(422);
  });

  test('VIEWER reads; may rename itself but not change its role or others', async () => {
    const reg = await issuer(t);
    const v = await reg.userWithRole('VIEWER');
    expect((await t.call('GET', '/users', { token: v.token })).status).toBe(200);
    expect((await t.call('GET', `/users/${reg.user.id}`, { token: v.token })).status).toBe(200);
    const rename = await t.call('PATCH', `/users/${v.id}`, { token: v.token, body: { nombre: 'Nuevo Nombre' } });
    expect(rename.status).toBe(200);
    expect(rename.json.nombre).toBe('Nuevo Nombre');
    expect((await t.call('PATCH', `/users/${v.id}`, { token: v.token, body: { role: 'ADMIN' } })).status).toBe(403);
    expect((await t.call('PATCH', `/users/${reg.user.id}`, { token: v.token, body: { nombre: 'x' } })).status).toBe(403);
    expect((await t.call('DELETE', `/users/${reg.user.id}`, { token: v.token })).status).toBe(403);
    expect((await t.call('PATCH', '/tenants/me', { token: v.token, body: { nombre: 'NO' } })).status).toBe(403);
  });

  test('ADMIN changes roles; the change applies to existing tokens at once', async () => {
    const reg = await issuer(t);
    const u = await reg.userWithRole('VIEWER');
    expect((await t.call('PATCH', `/users/${u.id}`, { token: reg.token, body: { role: 'ADMIN' } })).json.role).toBe('ADMIN');
    expect((await t.call('PATCH', '/tenants/me', { token: u.token, body: { nombre: 'AHORA SI' } })).status).toBe(200);
  });

  test('the last ADMIN cannot be demoted or deleted; nobody deletes themselves', async () => {
    const reg = await issuer(t);
    const demote = await t.call('PATCH', `/users/${reg.user.id}`, { token: reg.token, body: { role: 'VIEWER' } });
    expect(demote.status).toBe(409);
    expect((await t.call('DELETE', `/users/${reg.user.id}`, { token: reg.token })).status).toBe(409);
    const second = await reg.userWithRole('ADMIN');
    expect((await t.call('PATCH', `/users/${reg.user.id}`, { token: second.token, body: { role: 'OPERATOR' } })).status).toBe(200);
    expect((await t.call('DELETE', `/users/${second.id}`, { token: second.token })).status).toBe(409);
  });

  test('delete → 200, then 404', async () => {
    const reg = await issuer(t);
    const u = await reg.userWithRole('VIEWER');
    expect((await t.call('DELETE', `/users/${u.id}`, { token: reg.token })).json).toEqual({ id: u.id, deleted: true });
    expect((await t.call('GET', `/users/${u.id}`, { token: reg.token })).status).toBe(404);
    expect((await t.call('DELETE', `/users/${u.id}`, { token: reg.token })).status).toBe(404);
  });

  test('change-password: own needs the current password; it ends old sessions everywhere', async () => {
    const reg = await issuer(t);
    const u = await reg.userWithRole('OPERATOR');
    const login = await t.call('POST', '/auth/login', { body: { email: u.email, password: u.password } });
    expect((await t.call('POST', `/users/${u.id}/change-password`, { token: u.token, body: { new_password: 'brand-new-password' } })).status).toBe(422);
    const wrong = await t.call('POST', `/users/${u.id}/change-password`, {
      token: u.token,
      body: { current_password: 'nope', new_password: 'brand-new-password' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json.error.details[0].field).toBe('current_password');
    const ok = await t.call('POST', `/users/${u.id}/change-password`, {
      token: u.token,
      body: { current_password: u.password, new_password: 'brand-new-password' },
    });
    expect(ok.status).toBe(204);
    expect((await t.call('GET', '/tenants/me', { token: u.token })).status).toBe(401);
    expect((await t.call('POST', '/auth/refresh', { body: { refresh_token: login.json.refresh_token } })).status).toBe(401);
    expect((await t.call('POST', '/auth/login', { body: { email: u.email, password: u.password } })).status).toBe(401);
    expect((await t.call('POST', '/auth/login', { body: { email: u.email, password: 'brand-new-password' } })).status).toBe(200);
  });

  test("change-password: an ADMIN may reset another user's; an OPERATOR may not", async () => {
    const reg = await issuer(t);
    const a = await reg.userWithRole('OPERATOR');
    const b = await reg.userWithRole('OPERATOR');
    expect((await t.call('POST', `/users/${b.id}/change-password`, { token: a.token, body: { new_password: 'hijack-password' } })).status).toBe(403);
    expect((await t.call('POST', `/users/${b.id}/change-password`, { token: reg.token, body: { new_password: 'reset-by-admin' } })).status).toBe(204);
    expect((await t.call('POST', '/auth/login', { body: { email: b.email, password: 'reset-by-admin' } })).status).toBe(200);
  });
});
