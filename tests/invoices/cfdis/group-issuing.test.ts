import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { child, parseXml } from '../../../src/cfdi/xml.ts';
import { createTestApp, ingreso, issuer, READY, sharedTestDatabase, sqliteConnection, TEST_ENGINE } from '../../helpers.ts';

/**
 * SQLite: invoices waiting for the write lock together share a transaction, and each is sealed and stamped ahead, for
 * the folio it expects, while the ones before it are written (withGroupCommit's `ahead`). Another connection holds the
 * lock (as another process would) until every request waits, so they form one group.
 */
describe.skipIf(TEST_ENGINE !== 'sqlite')('POST /cfdis in one group commit', () => {
  let signing: ReturnType<typeof spyOn> | undefined;
  afterEach(() => signing?.mockRestore());

  async function issueTogether(bodies: Record<string, unknown>[]) {
    const [db, other] = await sharedTestDatabase(2);
    const t = await createTestApp({ db });
    const a = await issuer(t, READY);
    signing = spyOn(crypto.subtle, 'sign');
    const lock = sqliteConnection(other!);
    lock.exec('begin immediate');
    const answers = Promise.all(bodies.map((body) => t.call('POST', '/cfdis', { token: a.key, body })));
    await Bun.sleep(400); // every request validated and waiting for the lock
    lock.exec('commit');
    return { t, key: a.key, answers: await answers, signatures: signing.mock.calls.length };
  }

  /** The stored XML: its Folio is the answer's, and its Sello verifies over its own cadena with its certificate. */
  async function expectSealedForItsFolio(t: Awaited<ReturnType<typeof createTestApp>>, key: string, answer: { json: any }) {
    const xml = await (await t.app.request(`/api/v1/cfdis/${answer.json.id}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
    const root = parseXml(xml);
    expect(root.attrs.Folio).toBe(String(answer.json.folio));
    const certificate = createPublicKey(new X509Certificate(Buffer.from(root.attrs.Certificado!, 'base64')).publicKey.export({ type: 'spki', format: 'pem' }));
    expect(verify('sha256', Buffer.from(cadenaOriginal(root), 'utf8'), certificate, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
    const tfd = child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!;
    expect(tfd.attrs.SelloCFD).toBe(root.attrs.Sello);
    expect(tfd.attrs.UUID).toBe(answer.json.uuid);
  }

  test('eight at once: consecutive folios, each XML sealed for its own folio, two signatures per invoice (every guess right)', async () => {
    const { t, key, answers, signatures } = await issueTogether(Array.from({ length: 8 }, () => ingreso()));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(answers.map((r) => r.json.folio).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const answer of answers) await expectSealedForItsFolio(t, key, answer);
    expect(signatures).toBe(16);
  });

  test('one of them refused inside the group (an external_id taken by the one before): the rest keep consecutive folios, resealed for the folio they got', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => ingreso(i === 2 || i === 3 ? { external_id: 'pedido-1' } : {}));
    const { t, key, answers, signatures } = await issueTogether(bodies);
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(7).fill(201), 409]);
    expect(answers.find((r) => r.status === 409)!.json.error.details[0].field).toBe('external_id');
    const issued = answers.filter((r) => r.status === 201);
    expect(issued.map((r) => r.json.folio).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const answer of issued) await expectSealedForItsFolio(t, key, answer);
    // The refused one was sealed ahead too, and those after it expected one folio more than they got.
    expect(signatures).toBeGreaterThan(2 * 8);
  });
});
