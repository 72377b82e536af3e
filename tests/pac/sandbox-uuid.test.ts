import { describe, expect, test } from 'bun:test';
import { createTestApp, ingreso, issuer, READY } from '../helpers.ts';

const t = await createTestApp();
const body = ingreso();

describe('sandbox UUIDs', () => {
  test("two tenants with SAT's public test CSD issue the same invoice at the same instant: both 201, different UUIDs", async () => {
    const [first, second] = [(await issuer(t, READY)).key, (await issuer(t, READY)).key];
    const a = await t.call('POST', '/cfdis', { token: first, body });
    const b = await t.call('POST', '/cfdis', { token: second, body });
    expect([a.status, b.status]).toEqual([201, 201]);
    // The same sealed document: same emisor, serie and folio, Fecha and Sello.
    const sello = (uuid: string, key: string) => t.call('GET', `/cfdis/${uuid}/xml`, { token: key }).then((r) => /\sSello="([^"]+)"/.exec(r.text)![1]);
    expect(await sello(a.json.uuid, first)).toBe(await sello(b.json.uuid, second));
    expect(a.json.uuid).not.toBe(b.json.uuid);
  });
});
