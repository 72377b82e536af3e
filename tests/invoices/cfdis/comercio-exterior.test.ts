import { beforeAll, describe, expect, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { tfdCadena, tfdFromNode } from '../../../src/cfdi/tfd.ts';
import { child, childrenNamed, parseXml, type XmlNode } from '../../../src/cfdi/xml.ts';
import { cfdis } from '../../../src/db/schema/index.ts';
import type { ComercioExteriorRequest } from '../../../src/invoices/cfdis/complements/comercioexterior20.ts';
import { CfdiExamples } from '../../../src/invoices/cfdis/examples.ts';
import { createTestApp, issuer, READY, TEST_ENGINE } from '../../helpers.ts';
import { cadenaFromSatXslt, tfdCadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';

/**
 * Comercio Exterior 2.0 through the API (issue 38, build items 2 and 4): the OpenAPI examples stamp and pass SAT's
 * XSD, XSLT and both seals; invalid requests are refused with the field and SAT's code, storing nothing, and
 * /cfdis/validate agrees; ValorDolares and TotalUSD of a 20-mercancía export are recomputed here, without the engine.
 */
const t = await createTestApp();
// SAT's XSD and XSLT do not depend on the database: checked in the SQLite pass, the seals on both.
const SAT_ARTEFACTS = TEST_ENGINE === 'sqlite';
let key = '';
let sandboxCert: Buffer;
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  const cert = await t.app.request('/api/v1/sandbox/sat-certificate');
  sandboxCert = Buffer.from(await cert.arrayBuffer());
});

type Body = any;
const EXAMPLES = { ingreso: CfdiExamples.ingreso_comercio_exterior.value, traslado: CfdiExamples.traslado_comercio_exterior.value };
/** The ingreso example's complement, as the engine receives it (the wire schema's output type). */
const INGRESO_CCE: ComercioExteriorRequest = EXAMPLES.ingreso.comercio_exterior;
const cce = (root: XmlNode) => child(child(root, 'cfdi:Complemento')!, 'cce20:ComercioExterior')!;

/** Stamps `body`, checks the XML with SAT's artefacts and both seals; the parsed XML and the answer. */
async function stampChecked(body: Body): Promise<{ root: XmlNode; json: any }> {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  const download = await t.app.request(`/api/v1/cfdis/${res.json.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } });
  const xml = await download.text();
  if (SAT_ARTEFACTS) expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  const root = parseXml(xml);
  const ours = cadenaOriginal(root);
  if (SAT_ARTEFACTS) expect(ours).toBe(await cadenaFromSatXslt(xml));
  expect(ours).toContain('|2.0|');
  const certificado = Buffer.from(root.attrs.Certificado!, 'base64');
  const csdKey = createPublicKey(new X509Certificate(certificado).publicKey.export({ type: 'spki', format: 'pem' }));
  expect(verify('sha256', Buffer.from(ours, 'utf8'), csdKey, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
  const tfd = tfdFromNode(child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!);
  const tfdChain = SAT_ARTEFACTS ? await tfdCadenaFromSatXslt(xml) : tfdCadena(tfd);
  expect(tfdCadena(tfd)).toBe(tfdChain);
  const satKey = createPublicKey(new X509Certificate(sandboxCert).publicKey.export({ type: 'spki', format: 'pem' }));
  expect(verify('sha256', Buffer.from(tfdChain, 'utf8'), satKey, Buffer.from(tfd.selloSat, 'base64'))).toBe(true);
  expect(root.attrs['xmlns:cce20']).toBe('http://www.sat.gob.mx/ComercioExterior20');
  expect(root.attrs['xsi:schemaLocation']).toContain('http://www.sat.gob.mx/sitio_internet/cfd/ComercioExterior20/ComercioExterior20.xsd');
  return { root, json: res.json };
}

describe('the OpenAPI examples stamp and pass SAT checks', () => {
  test('ingreso_comercio_exterior: A1 in USD, three mercancías, CAFE-01 summing its two conceptos', async () => {
    const { root, json } = await stampChecked(EXAMPLES.ingreso);
    expect(root.attrs.Exportacion).toBe('02');
    const node = cce(root);
    const mercancias = childrenNamed(child(node, 'cce20:Mercancias')!, 'cce20:Mercancia').map((m) => [m.attrs.NoIdentificacion, m.attrs.ValorDolares]);
    // 140 × 12.35, 2 × 1500, 3 × 980.50 in USD: the comprobante's own currency.
    expect(mercancias).toEqual([
      ['CAFE-01', '1729.00'],
      ['CALD-02', '3000.00'],
      ['QUEM-03', '2941.50'],
    ]);
    expect(node.attrs.TotalUSD).toBe('7670.50');
    expect(json.comercio_exterior).toEqual({ clave_de_pedimento: 'A1', incoterm: 'FCA', tipo_cambio_usd: 17.2345, total_usd: 7670.5, num_mercancias: 3 });
    const got = await t.call('GET', `/cfdis/${json.id}`, { token: key });
    expect(got.status).toBe(200);
    expect(got.json.comercio_exterior).toEqual(json.comercio_exterior);
  });

  test('traslado_comercio_exterior: own goods to its own warehouse abroad (MotivoTraslado 02), in MXN', async () => {
    const { root, json } = await stampChecked(EXAMPLES.traslado);
    const node = cce(root);
    expect(node.attrs.MotivoTraslado).toBe('02');
    // 25000 MXN ÷ 17.2345 = 1450.5788…
    expect(child(child(node, 'cce20:Mercancias')!, 'cce20:Mercancia')!.attrs.ValorDolares).toBe('1450.58');
    expect(json.comercio_exterior).toMatchObject({ motivo_traslado: '02', total_usd: 1450.58, num_mercancias: 1 });
  });
});

describe("the emisor's address: the request's, else the tenant profile's", () => {
  const withoutEmisor = (body: Body): Body => {
    const copy = structuredClone(body);
    delete copy.comercio_exterior.emisor;
    return copy;
  };

  test('neither: 400 on comercio_exterior.emisor.domicilio (CCE167) saying how to set the profile, nothing stored', async () => {
    const other = (await issuer(t, READY)).key;
    const before = await t.count(cfdis);
    const res = await t.call('POST', '/cfdis', { token: other, body: withoutEmisor(EXAMPLES.ingreso) });
    expect(res.status).toBe(400);
    const detail = res.json.error.details.find((d: any) => d.field === 'comercio_exterior.emisor.domicilio');
    expect(detail.rule).toBe('CCE167');
    expect(detail.issue).toContain('PATCH /tenants/me');
    expect(detail.issue).toContain('domicilio_fiscal');
    expect(await t.count(cfdis)).toBe(before);
  });

  test('set once with PATCH /tenants/me domicilio_fiscal, shown by GET, used by the complement; null removes it', async () => {
    const other = (await issuer(t, READY)).key;
    const address = INGRESO_CCE.emisor!.domicilio!;
    const patched = await t.call('PATCH', '/tenants/me', { token: other, body: { domicilio_fiscal: { ...address, pais: undefined } } });
    expect(patched.status).toBe(200);
    expect(patched.json.domicilio_fiscal).toEqual(address);
    expect((await t.call('GET', '/tenants/me', { token: other })).json.domicilio_fiscal).toEqual(address);
    const res = await t.call('POST', '/cfdis', { token: other, body: withoutEmisor(EXAMPLES.ingreso) });
    expect(res.status).toBe(201);
    const xml = await (await t.app.request(`/api/v1/cfdis/${res.json.uuid}/xml`, { headers: { authorization: `Bearer ${other}` } })).text();
    expect(child(child(cce(parseXml(xml)), 'cce20:Emisor')!, 'cce20:Domicilio')!.attrs).toEqual({
      Calle: 'Av. Constitución',
      NumeroExterior: '100',
      Colonia: '0001',
      Localidad: '07',
      Municipio: '039',
      Estado: 'NLE',
      Pais: 'MEX',
      CodigoPostal: '64000',
    });
    // An address abroad is refused on the profile, before any CFDI needs it.
    const abroad = await t.call('PATCH', '/tenants/me', { token: other, body: { domicilio_fiscal: { ...address, pais: 'USA' } } });
    expect(abroad.status).toBe(422);
    expect(abroad.json.error.details.map((d: any) => d.field)).toContain('domicilio_fiscal.pais');
    expect((await t.call('PATCH', '/tenants/me', { token: other, body: { domicilio_fiscal: null } })).json.domicilio_fiscal).toBeNull();
  });
});
