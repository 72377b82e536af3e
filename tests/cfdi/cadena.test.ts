import { describe, expect, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cadenaOriginal, normalizeSpace } from '../../src/cfdi/cadena.ts';
import { tfdCadena, tfdFromNode } from '../../src/cfdi/tfd.ts';
import { child, parseXml } from '../../src/cfdi/xml.ts';

/** Golden tests: our cadena builders reproduce SAT's XSLT output on SAT-signed samples, and the seals verify. */
const SAMPLES = join(import.meta.dir, '..', 'fixtures', 'sat', 'samples');
const read = (name: string) => readFileSync(join(SAMPLES, name), 'utf8');
const SAT_CERT = readFileSync(join(import.meta.dir, '..', 'fixtures', 'csd', 'sat-timbrado', '30001000000500003456.cer'));
const keyOf = (der: Buffer) => createPublicKey(new X509Certificate(der).publicKey.export({ type: 'spki', format: 'pem' }));

for (const name of ['cfdi40-ingreso-iva-sandbox-EKU', 'cfdi40-ingreso-retenciones-sandbox-EKU', 'cfdi40-pago20-sandbox-WATM']) {
  describe(name, () => {
    const root = parseXml(read(`${name}.xml`));
    test('cadena original equals the stored XSLT output and the Sello verifies', () => {
      const cadena = cadenaOriginal(root);
      expect(cadena).toBe(read(`${name}.cadena.txt`));
      const cert = Buffer.from(root.attrs.Certificado!, 'base64');
      expect(verify('sha256', Buffer.from(cadena), keyOf(cert), Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
    });
    test('TFD cadena equals the stored XSLT output and the SelloSAT verifies', () => {
      const tfd = tfdFromNode(child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!);
      const cadena = tfdCadena(tfd);
      expect(cadena).toBe(read(`${name}.tfd-cadena.txt`));
      expect(verify('sha256', Buffer.from(cadena), keyOf(SAT_CERT), Buffer.from(tfd.selloSat, 'base64'))).toBe(true);
    });
    test('a changed attribute changes the cadena and breaks the seal', () => {
      const copy = parseXml(read(`${name}.xml`));
      copy.attrs.Total = '1.00';
      const cert = Buffer.from(copy.attrs.Certificado!, 'base64');
      expect(verify('sha256', Buffer.from(cadenaOriginal(copy)), keyOf(cert), Buffer.from(copy.attrs.Sello!, 'base64'))).toBe(false);
    });
  });
}

// The Pagos 2.0 and Nómina 1.2 golden samples without a TFD: our complement templates reproduce SAT's XSLT too.
describe.each(['cfdi40-pago20-sellado-sin-timbre-EKU', 'cfdi40-nomina12-sin-sello'])('%s', (name) => {
  test('cadena original equals the stored XSLT output (and the Sello verifies where there is one)', () => {
    const root = parseXml(read(`${name}.xml`));
    const cadena = cadenaOriginal(root);
    expect(cadena).toBe(read(`${name}.cadena.txt`));
    expect(cadena).toContain(name.includes('pago20') ? '|2.0|' : '|1.2|');
    if (root.attrs.Sello) {
      const cert = Buffer.from(root.attrs.Certificado!, 'base64');
      expect(verify('sha256', Buffer.from(cadena), keyOf(cert), Buffer.from(root.attrs.Sello, 'base64'))).toBe(true);
    }
  });
});

test('normalize-space collapses whitespace like XPath', () => {
  expect(normalizeSpace('  a \t\n b  ')).toBe('a b');
  expect(normalizeSpace('a\u00a0b')).toBe('a\u00a0b');
});
