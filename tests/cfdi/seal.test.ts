import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { openPrivateKey, parseCertificate, publicKeyOf, rsaSha256 } from '../../src/cfdi/csd.ts';
import { csdFiles } from '../helpers.ts';

/** Sello and SelloSAT are signed on WebCrypto (Bun's thread pool): the same bytes as node:crypto's, which SAT checks. */
describe('rsaSha256', () => {
  const eku = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
  const certificate = parseCertificate(eku.cer);
  const key = openPrivateKey(eku.key, eku.password, certificate);

  test("the EKU test CSD: byte for byte node:crypto's RSA PKCS#1 v1.5 SHA-256, over the cadena's UTF-8", async () => {
    const seal = rsaSha256(key);
    for (const cadena of ['||4.0|A|1|2026-11-21T10:00:00|ÑANDÚ €||', '||1.1|AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE|2026-11-21T10:00:05||', '']) {
      const sello = await seal(cadena);
      expect(sello).toBe(sign('sha256', Buffer.from(cadena, 'utf8'), key).toString('base64'));
      expect(verify('sha256', Buffer.from(cadena, 'utf8'), publicKeyOf(certificate.der), Buffer.from(sello, 'base64'))).toBe(true);
    }
  });

  test('signatures asked for together are all right, each for its own text', async () => {
    const seal = rsaSha256(key);
    const texts = Array.from({ length: 24 }, (_, i) => `||4.0|A|${i + 1}||`);
    const sellos = await Promise.all(texts.map(seal));
    for (const [i, text] of texts.entries()) expect(sellos[i]).toBe(sign('sha256', Buffer.from(text, 'utf8'), key).toString('base64'));
  });

  test('a key WebCrypto does not import as RSA is signed by node:crypto, as before', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signature = await rsaSha256(privateKey)('||4.0||');
    expect(verify('sha256', Buffer.from('||4.0||', 'utf8'), publicKey, Buffer.from(signature, 'base64'))).toBe(true);
  });
});
