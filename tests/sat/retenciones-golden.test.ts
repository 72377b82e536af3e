// Golden tests of Retenciones 2.0: SAT-side samples must pass our checks (schema, cadena by SAT's stylesheet, seal),
// and the engine's cadena must equal the stylesheet's on them, so the checks of our own documents can be trusted.
import { describe, expect, test } from 'bun:test';
import { X509Certificate, verify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cadenaRetencion } from '../../src/cfdi/retenciones/cadena.ts';
import { validateRetencionSchema } from '../../src/cfdi/retenciones/xsd.ts';
import { parseXml } from '../../src/cfdi/xml.ts';
import { SAT_DIR, retencionCadenaFromSatXslt, transformFromXsltSource, validateRetencionAgainstSatXsd } from './verify.ts';

const SAMPLES = join(SAT_DIR, 'samples', 'retenciones20');
const samples = readdirSync(SAMPLES)
  .filter((f) => f.endsWith('.xml'))
  .map((f) => {
    const name = f.slice(0, -'.xml'.length);
    const xml = readFileSync(join(SAMPLES, f), 'utf8');
    return { name, xml, cadena: readFileSync(join(SAMPLES, `${name}.cadena.txt`), 'utf8'), sello: /\sSello="([^"]*)"/.exec(xml)?.[1] ?? '' };
  });

test('fixture set: 2 Retenciones 2.0 samples, one signed (Dividendos), one unsigned with 11 complements', () => {
  expect(samples.map((s) => s.name).sort()).toEqual(['retenciones20-11-complementos-sin-sello-fixture', 'retenciones20-dividendos-sellado-sin-timbre-EKU']);
  expect(samples.filter((s) => s.sello !== '').length).toBe(1);
});

describe.each(samples)('$name', (s) => {
  test("passes SAT's schemas (the test copy, and the engine's own copy)", async () => {
    expect(await validateRetencionAgainstSatXsd(s.xml)).toEqual({ valid: true, errors: [] });
    expect((await validateRetencionSchema(s.xml)).valid).toBe(true);
  });

  test("SAT's retenciones.xslt gives the stored cadena, and so does the engine", async () => {
    expect(await retencionCadenaFromSatXslt(s.xml)).toBe(s.cadena);
    expect(cadenaRetencion(parseXml(s.xml))).toBe(s.cadena);
  });

  test.if(s.sello !== '')('its Sello verifies over the cadena (RSA-SHA256)', () => {
    const der = Buffer.from(/\sCertificado="([^"]*)"/.exec(s.xml)![1]!, 'base64');
    expect(verify('sha256', Buffer.from(s.cadena, 'utf8'), new X509Certificate(der).publicKey, Buffer.from(s.sello, 'base64'))).toBe(true);
  });
});

test('the SEF matches retenciones.xslt compiled on the fly', async () => {
  const s = samples.find((x) => x.name.includes('11-complementos'))!;
  const fromSource = transformFromXsltSource('retenciones20/retenciones.xslt', s.xml);
  expect(fromSource).toBe(await retencionCadenaFromSatXslt(s.xml));
  expect(fromSource).toBe(s.cadena);
}, 120_000);
