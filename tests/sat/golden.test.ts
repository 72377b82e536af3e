// Golden tests: SAT's real samples must pass our SAT-artefact checks, so those checks can be trusted on our own XML.
import { describe, expect, test } from 'bun:test';
import { X509Certificate, verify } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAT_DIR, cadenaFromSatXslt, extractTfd, tfdCadenaFromSatXslt, transformFromXsltSource, validateAgainstSatXsd } from './verify.ts';

const SAMPLES = join(SAT_DIR, 'samples');
const TIMBRADO = join(import.meta.dir, '..', 'fixtures', 'csd', 'sat-timbrado');
const read = (file: string) => readFileSync(join(SAMPLES, file), 'utf8');

function attr(xml: string, element: string, name: string): string | undefined {
  return new RegExp(`<${element}\\b[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1];
}

function sealVerifies(cadena: string, certificateDer: Buffer, sealBase64: string): boolean {
  const publicKey = new X509Certificate(certificateDer).publicKey;
  return verify('sha256', Buffer.from(cadena, 'utf8'), publicKey, Buffer.from(sealBase64, 'base64'));
}

const samples = readdirSync(SAMPLES)
  .filter((f) => f.endsWith('.xml'))
  .map((f) => {
    const name = f.slice(0, -'.xml'.length);
    const xml = read(f);
    const sello = attr(xml, 'cfdi:Comprobante', 'Sello');
    return {
      name,
      xml,
      cadena: read(`${name}.cadena.txt`),
      tfdCadena: existsSync(join(SAMPLES, `${name}.tfd-cadena.txt`)) ? read(`${name}.tfd-cadena.txt`) : undefined,
      signed: sello !== undefined && sello !== '',
    };
  });

// The SAT material these were copied from once had a 6th (production-stamped) sample; it was removed because it named a real taxpayer.
// The implocal fixture is unsigned and synthetic (tipo P with implocal): it checks the schema and the stylesheet only.
test('fixture set is complete: 6 samples, 4 signed, 3 stamped', () => {
  expect(samples.length).toBe(6);
  expect(samples.filter((s) => s.signed).length).toBe(4);
  expect(samples.filter((s) => s.tfdCadena !== undefined).length).toBe(3);
});

describe.each(samples)('$name', (s) => {
  test("is valid against SAT's XSD", async () => {
    expect(await validateAgainstSatXsd(s.xml)).toEqual({ valid: true, errors: [] });
  });

  test("SAT's XSLT gives the stored cadena byte for byte", async () => {
    expect(await cadenaFromSatXslt(s.xml)).toBe(s.cadena);
  });

  test.if(s.signed)('Sello verifies with the embedded certificate', () => {
    const cert = Buffer.from(attr(s.xml, 'cfdi:Comprobante', 'Certificado')!, 'base64');
    expect(sealVerifies(s.cadena, cert, attr(s.xml, 'cfdi:Comprobante', 'Sello')!)).toBe(true);
  });

  test.if(s.tfdCadena !== undefined)('TFD cadena and SelloSAT', async () => {
    expect(await tfdCadenaFromSatXslt(s.xml)).toBe(s.tfdCadena!);
    const noCertificadoSat = attr(s.xml, 'tfd:TimbreFiscalDigital', 'NoCertificadoSAT')!;
    const cert = readFileSync(join(TIMBRADO, `${noCertificadoSat}.cer`));
    expect(sealVerifies(s.tfdCadena!, cert, attr(s.xml, 'tfd:TimbreFiscalDigital', 'SelloSAT')!)).toBe(true);
  });
});

describe('negative controls', () => {
  const s = samples.find((x) => x.name === 'cfdi40-ingreso-iva-sandbox-EKU')!;

  test('without Exportacion the XSD check fails', async () => {
    const xml = s.xml.replace(/\sExportacion="[^"]*"/, '');
    expect(xml).not.toBe(s.xml);
    const result = await validateAgainstSatXsd(xml);
    expect(result.valid).toBe(false);
    expect(result.errors.join('\n')).toContain("The attribute 'Exportacion' is required but missing");
  });

  test('malformed XML is invalid, not an exception', async () => {
    expect((await validateAgainstSatXsd(s.xml.slice(0, 200))).valid).toBe(false);
  });

  test('one changed character in the cadena breaks the Sello', () => {
    const cert = Buffer.from(attr(s.xml, 'cfdi:Comprobante', 'Certificado')!, 'base64');
    const sello = attr(s.xml, 'cfdi:Comprobante', 'Sello')!;
    const tampered = s.cadena.replace('|3327.01|', '|3327.02|');
    expect(tampered).not.toBe(s.cadena);
    expect(sealVerifies(tampered, cert, sello)).toBe(false);
  });
});

// The SEFs in tests/fixtures/sat/sef are compiled from tests/fixtures/sat/xslt; this catches a stale SEF.
describe('SEF matches its XSLT source', () => {
  const s = samples.find((x) => x.name === 'cfdi40-pago20-sandbox-WATM')!;

  test('cadenaoriginal_4_0.xslt compiled on the fly', async () => {
    const fromSource = transformFromXsltSource('cadenaoriginal_4_0.xslt', s.xml);
    expect(fromSource).toBe(await cadenaFromSatXslt(s.xml));
    expect(fromSource).toBe(s.cadena);
  }, 120_000); // xslt3 compiles the stylesheet: 34 s seen on 2 busy cores

  test('cadenaoriginal_TFD_1_1.xslt compiled on the fly', async () => {
    const fromSource = transformFromXsltSource('cadenaoriginal_TFD_1_1.xslt', extractTfd(s.xml));
    expect(fromSource).toBe(await tfdCadenaFromSatXslt(s.xml));
    expect(fromSource).toBe(s.tfdCadena!);
  }, 120_000);
});
