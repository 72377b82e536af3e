import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer } from '../helpers.ts';
import { sql } from 'drizzle-orm';

const t = await createTestApp({ webhookAllowPrivate: true }); // no DNS here to resolve the webhook's erp.example.com

describe('Idempotency-Key belongs to the credential that used it', () => {
  test("a VIEWER resending an ADMIN's POST /api-keys with the same key and body gets 403, not the ADMIN's secret", async () => {
    const admin = await issuer(t);
    const viewer = await admin.userWithRole('VIEWER');
    const headers = { 'idempotency-key': 'make-key-1' };
    const body = { name: 'ERP', environment: 'live' };
    const created = await t.call('POST', '/api-keys', { token: admin.token, body, headers });
    expect(created.status).toBe(201);
    expect(created.json.key).toStartWith('sk_live_');
    const replayedToViewer = await t.call('POST', '/api-keys', { token: viewer.token, body, headers });
    expect(replayedToViewer.status).toBe(403);
    expect(replayedToViewer.text).not.toContain(created.json.key);
    expect(replayedToViewer.headers.get('idempotent-replayed')).toBeNull();
    // The ADMIN's own retry still gets its answer back, secret included.
    const retried = await t.call('POST', '/api-keys', { token: admin.token, body, headers });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.json.key).toBe(created.json.key);
  });

  test('a user whose role changed is checked again instead of being answered from before', async () => {
    const owner = await issuer(t);
    const second = await owner.userWithRole('ADMIN');
    const headers = { 'idempotency-key': 'make-key-2' };
    const body = { name: 'Shop', environment: 'test' };
    expect((await t.call('POST', '/api-keys', { token: second.token, body, headers })).status).toBe(201);
    expect((await t.call('PATCH', `/users/${second.id}`, { token: owner.token, body: { role: 'VIEWER' } })).status).toBe(200);
    const after = await t.call('POST', '/api-keys', { token: second.token, body, headers });
    expect(after.status).toBe(403);
  });

  test('another API key of the same tenant sending the same Idempotency-Key makes its own request; stored answers hold no secret in clear', async () => {
    const admin = await issuer(t);
    const k1 = await admin.createKey('test', 'one');
    const k2 = await admin.createKey('test', 'two');
    const headers = { 'idempotency-key': 'hook-1' };
    const body = { url: 'https://erp.example.com/hooks', events: ['cfdi.timbrado'] };
    const first = await t.call('POST', '/webhooks', { token: k1.key, body, headers });
    const second = await t.call('POST', '/webhooks', { token: k2.key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.json.id).not.toBe(first.json.id);
    expect(second.json.secret).not.toBe(first.json.secret);
    expect((await t.call('POST', '/webhooks', { token: k1.key, body, headers })).json.secret).toBe(first.json.secret);

    await t.call('POST', '/api-keys', { token: admin.token, body: { name: 'sealed', environment: 'live' }, headers: { 'idempotency-key': 'key-3' } });
    const rows = await t.query<{ body: Buffer }>(sql`select body from idempotency_keys where tenant_id = ${admin.tenant.id}`);
    expect(rows.length).toBe(3);
    for (const { body: stored } of rows) {
      const text = Buffer.from(stored).toString('latin1');
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('sk_live_');
      expect(text).not.toContain('sk_test_');
    }
  });
});
