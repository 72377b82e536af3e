import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer } from '../../helpers.ts';

const t = await createTestApp();

describe('API key cap', () => {
  test('at most 20 active keys per tenant and environment: the 21st is 409 naming the limit; revoking one frees a place', async () => {
    const admin = await issuer(t);
    const keys = [];
    for (let i = 0; i < 20; i++) keys.push(await admin.createKey('test', `k${i}`));
    const over = await t.call('POST', '/api-keys', { token: admin.token, body: { name: 'one too many', environment: 'test' } });
    expect(over.status).toBe(409);
    expect(over.json.error.details).toEqual([{ field: 'environment', issue: 'the tenant already has 20 active test keys, the limit is 20: revoke one first' }]);
    expect((await t.call('POST', '/api-keys', { token: admin.token, body: { name: 'live one', environment: 'live' } })).status).toBe(201);
    expect((await t.call('DELETE', `/api-keys/${keys[0]!.id}`, { token: admin.token })).status).toBe(200);
    expect((await t.call('POST', '/api-keys', { token: admin.token, body: { name: 'replacement', environment: 'test' } })).status).toBe(201);
  });
});
