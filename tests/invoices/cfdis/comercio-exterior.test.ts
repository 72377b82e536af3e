import { beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { tfdCadena, tfdFromNode } from '../../../src/cfdi/tfd.ts';
import { child, childrenNamed, parseXml, serializeXml, type XmlNode } from '../../../src/cfdi/xml.ts';
import { cfdis, series } from '../../../src/db/schema/index.ts';
import type { ComercioExteriorRequest } from '../../../src/invoices/cfdis/complements/comercioexterior20.ts';
import { CfdiExamples } from '../../../src/invoices/cfdis/examples.ts';
import { createTestApp, ICV, issuer, READY, TEST_ENGINE } from '../../helpers.ts';
import { CARTAS_PORTE } from '../../cfdi/cartaporte31/corpus.ts';
import { readPdf } from '../../cfdi/pdf/carta-porte.ts';
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
/** A Mexican client of the tenant (receptor_id): an export's receptor is foreign (CCE150). */
let CLIENT_ID = '';
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  const client = await t.call('POST', '/clients', { token: key, body: { ...ICV, uso_cfdi: 'G03' } });
  if (client.status !== 201) throw new Error(`${client.status} ${client.text}`);
  CLIENT_ID = client.json.id;
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

// Where the folio's transaction commits before the seal (PostgreSQL), a request whose seal failed is sealed later by
// its job from the draft it carries: with the address validation read, whatever the profile says by then.
test.skipIf(TEST_ENGINE !== 'postgres')("a queued draft keeps the profile's address it was validated with", async () => {
  const q = await createTestApp({ wakeOnEnqueue: false });
  const other = (await issuer(q, READY)).key;
  const address = INGRESO_CCE.emisor!.domicilio!;
  expect((await q.call('PATCH', '/tenants/me', { token: other, body: { domicilio_fiscal: address } })).status).toBe(200);
  const body: Body = structuredClone(EXAMPLES.ingreso);
  delete body.comercio_exterior.emisor;
  const sign = spyOn(crypto.subtle, 'sign').mockImplementationOnce(() => Promise.reject(new Error('the signing thread is gone')));
  const res = await q.call('POST', '/cfdis', { token: other, body });
  sign.mockRestore();
  expect(res.status).toBe(202);
  expect((await q.call('PATCH', '/tenants/me', { token: other, body: { domicilio_fiscal: null } })).status).toBe(200);
  q.clock.advance(5_000);
  await q.app.worker.drain();
  const done = await q.call('GET', `/cfdis/${res.json.id}`, { token: other });
  expect(done.json.status).toBe('vigente');
  const xml = await (await q.app.request(`/api/v1/cfdis/${done.json.uuid}/xml`, { headers: { authorization: `Bearer ${other}` } })).text();
  expect(child(child(cce(parseXml(xml)), 'cce20:Emisor')!, 'cce20:Domicilio')!.attrs.Calle).toBe('Av. Constitución');
});

test('with Carta Porte on one Traslado: both complements in registry order, valid for SAT whatever their order', async () => {
  // The corpus' export by road to Laredo, its pallets also declared to customs (own goods relocated: motivo 02). Carta
  // Porte keeps a T in XXX at value 0, so ValorDolares is 0: the engine only refuses a 0 that is sent (CCE217), an
  // open question against SAT's matrix (docs/comercioexterior20.md); this test is about the two nodes together.
  const body: Body = structuredClone(CARTAS_PORTE.find(([name]) => name.startsWith('Carta Porte T, autotransporte: export'))![1]);
  body.exportacion = '02';
  body.conceptos[0].no_identificacion = 'EST-01';
  body.comercio_exterior = {
    motivo_traslado: '02',
    tipo_cambio_usd: '17.2345',
    emisor: INGRESO_CCE.emisor,
    receptor: INGRESO_CCE.receptor,
    mercancias: [{ no_identificacion: 'EST-01', fraccion_arancelaria: body.carta_porte.mercancias[0].fraccion_arancelaria }],
  };
  const { root } = await stampChecked(body);
  const complemento = child(root, 'cfdi:Complemento')!;
  expect(complemento.children.map((c) => c.name)).toEqual(['cartaporte31:CartaPorte', 'cce20:ComercioExterior', 'tfd:TimbreFiscalDigital']);
  // cfdi:Complemento is a sequence of xs:any: the other order is as valid, and the cadena follows the document's order.
  if (SAT_ARTEFACTS) {
    const [cp, ce, tfd] = complemento.children;
    complemento.children = [ce!, cp!, tfd!];
    const swapped = serializeXml(root);
    expect(await validateAgainstSatXsd(swapped)).toEqual({ valid: true, errors: [] });
    expect(cadenaOriginal(parseXml(swapped))).toBe(await cadenaFromSatXslt(swapped));
  }
});

describe('the PDF', () => {
  test("prints the complement's header, each mercancía with its ValorDolares, and TotalUSD", async () => {
    const { json } = await stampChecked(EXAMPLES.ingreso);
    const pdf = await t.app.request(`/api/v1/cfdis/${json.uuid}/pdf`, { headers: { authorization: `Bearer ${key}` } });
    expect(pdf.status).toBe(200);
    const text = (await readPdf(new Uint8Array(await pdf.arrayBuffer())))
      .flat()
      .map((i) => i.str)
      .join(' ');
    expect(text).toContain('COMPLEMENTO DE COMERCIO EXTERIOR');
    for (const s of ['A1 - IMPORTACION O EXPORTACION DEFINITIVA', 'FCA - ', '17.2345', 'Congress Ave', 'Av. Constitución 100', 'ACME'])
      expect([s, text.includes(s)]).toEqual([s, true]);
    const rows: [string, string, string][] = [
      ['CAFE-01', '0901110300', '1,729.00'],
      ['CALD-02', '8403100100', '3,000.00'],
      ['QUEM-03', '8403100100', '2,941.50'],
    ];
    for (const [id, fraccion, dolares] of rows)
      expect([id, text.includes(id), text.includes(fraccion), text.includes(dolares)]).toEqual([id, true, true, true]);
    expect(text).toMatch(/Total USD .*7,670\.50/);
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

/** A deep copy of an example, changed by `edit` (the body and its comercio_exterior). */
const from = (example: Body, edit: (body: Body, c: Body) => void) => (): Body => {
  const body = structuredClone(example);
  edit(body, body.comercio_exterior);
  return body;
};
const I = (edit: (body: Body, c: Body) => void) => from(EXAMPLES.ingreso, edit);
const T = (edit: (body: Body, c: Body) => void) => from(EXAMPLES.traslado, edit);
const AUSTIN = { calle: 'Congress Ave', numero_exterior: '500', estado: 'TX', pais: 'USA', codigo_postal: '78701' };
/** Monterrey Centro, as the Mexican address a case breaks one key of. */
const MTY = { calle: 'Juárez', colonia: '0001', localidad: '07', municipio: '039', estado: 'NLE', pais: 'MEX', codigo_postal: '64000' };
/** The traslado with its receptor's address in Mexico (motivo 02 may relocate goods to a place of its own here). */
const receptorMx = (over: Record<string, string>) => T((_b, c) => (c.receptor.domicilio = { ...MTY, ...over }));
/** The ingreso with one destinatario at `domicilio`. */
const destinatario = (domicilio: Record<string, string>, extra: Record<string, string> = {}) =>
  I((_b, c) => (c.destinatario = [{ nombre: 'Warehouse', ...extra, domicilio: [domicilio] }]));
const emisorAt = (over: Record<string, string>) => I((_b, c) => Object.assign(c.emisor.domicilio, over));
const triplet = { cantidad_aduana: '140', unidad_aduana: '01', valor_unitario_aduana: '12.35' };

/** [name, request, field, SAT's code (1.1 matrix numbering: docs/comercioexterior20.md); undefined: the XSD's format]. */
const CASES: [string, () => Body, string, string | undefined][] = [
  // The comprobante that carries it.
  ['exportacion 02 without comercio_exterior', I((b) => delete b.comercio_exterior), 'exportacion', 'CFDI40122'],
  ['comercio_exterior with exportacion 01', I((b) => (b.exportacion = '01')), 'comercio_exterior', 'CCE145'],
  ['comercio_exterior without exportacion (01 by default)', I((b) => delete b.exportacion), 'comercio_exterior', 'CCE145'],
  [
    'comercio_exterior on an Egreso',
    I((b) => Object.assign(b, { tipo: 'E', cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['5FB2822E-396D-4725-8521-CDC4BDD20CCF'] }] })),
    'comercio_exterior',
    'CCE145',
  ],
  ['a Traslado without motivo_traslado', T((_b, c) => delete c.motivo_traslado), 'comercio_exterior.motivo_traslado', 'CCE146'],
  ['an Ingreso with motivo_traslado', I((_b, c) => (c.motivo_traslado = '02')), 'comercio_exterior.motivo_traslado', 'CCE113'],
  ['goods of third parties without their owners', T((_b, c) => (c.motivo_traslado = '05')), 'comercio_exterior.propietario', 'CCE147'],
  [
    'owners on an Ingreso',
    I((_b, c) => (c.propietario = [{ num_reg_id_trib: '123456789', residencia_fiscal: 'USA' }])),
    'comercio_exterior.propietario',
    'CCE148',
  ],
  ['goods invoiced before, without the relation to them', T((_b, c) => (c.motivo_traslado = '01')), 'cfdi_relacionados', 'CCE157'],
  ['an export Ingreso to a Mexican receptor', I((b) => (b.receptor = { ...ICV, uso_cfdi: 'G01' })), 'receptor.rfc', 'CCE150'],
  [
    'an export Ingreso to a stored Mexican client',
    I((b) => {
      delete b.receptor;
      b.receptor_id = CLIENT_ID;
    }),
    'receptor_id.rfc',
    'CCE150',
  ],
  ['a Traslado of motivo 03 to a Mexican receptor', T((_b, c) => (c.motivo_traslado = '03')), 'receptor.rfc', 'CCE150'],
  // Header.
  [
    'an Ingreso in MXN without tipo_cambio_usd',
    I((b) => Object.assign(b, { moneda: 'MXN', tipo_cambio: undefined })),
    'comercio_exterior.tipo_cambio_usd',
    'CCE159',
  ],
  ['tipo_cambio_usd 0', I((_b, c) => (c.tipo_cambio_usd = '0')), 'comercio_exterior.tipo_cambio_usd', 'CCE159'],
  ['a certificate number without being one', I((_b, c) => (c.num_certificado_origen = 'CO-2026-000123')), 'comercio_exterior.num_certificado_origen', 'CCE160'],
  [
    'a trusted exporter number with no one in the EU',
    I((_b, c) => (c.numero_exportador_confiable = 'MXREX20260001')),
    'comercio_exterior.numero_exportador_confiable',
    'CCE161',
  ],
  ['total_usd that is not the sum', I((_b, c) => (c.total_usd = '7670.49')), 'comercio_exterior.total_usd', 'CCE162'],
  ['total_usd with one decimal', I((_b, c) => (c.total_usd = '7670.5')), 'comercio_exterior.total_usd', 'CCE163'],
  ['clave_de_pedimento not in c_ClavePedimento', I((_b, c) => (c.clave_de_pedimento = 'ZZ')), 'comercio_exterior.clave_de_pedimento', undefined],
  ['incoterm not in c_INCOTERM', I((_b, c) => (c.incoterm = 'XYZ')), 'comercio_exterior.incoterm', undefined],
  ['a CURP with an impossible birth date', I((_b, c) => (c.emisor.curp = 'CACX761310HDFRRN09')), 'comercio_exterior.emisor.curp', undefined],
  ['certificado_origen 2', I((_b, c) => (c.certificado_origen = 2)), 'comercio_exterior.certificado_origen', undefined],
  // Emisor.
  ['a CURP for a persona moral', I((_b, c) => (c.emisor.curp = 'CACX760510HDFRRN09')), 'comercio_exterior.emisor.curp', 'CCE164'],
  ['no address for the emisor, none on the profile', I((_b, c) => delete c.emisor), 'comercio_exterior.emisor.domicilio', 'CCE167'],
  ['the emisor abroad', emisorAt({ pais: 'USA', estado: 'TX', codigo_postal: '78701' }), 'comercio_exterior.emisor.domicilio.pais', 'CCE168'],
  ['the emisor in an estado that does not exist', emisorAt({ estado: 'XXX' }), 'comercio_exterior.emisor.domicilio.estado', 'CCE169'],
  ['the emisor in a municipio not of its estado', emisorAt({ municipio: '999' }), 'comercio_exterior.emisor.domicilio.municipio', 'CCE170'],
  ['the emisor in a localidad not of its estado', emisorAt({ localidad: '98' }), 'comercio_exterior.emisor.domicilio.localidad', 'CCE171'],
  ['the emisor in a colonia not of its código postal', emisorAt({ colonia: '9999' }), 'comercio_exterior.emisor.domicilio.colonia', 'CCE172'],
  ['the emisor at a código postal of another estado', emisorAt({ codigo_postal: '06600' }), 'comercio_exterior.emisor.domicilio.codigo_postal', 'CCE173'],
  // Propietario, receptor.
  [
    "an owner's tax id not in its country's pattern",
    T((_b, c) => Object.assign(c, { motivo_traslado: '05', propietario: [{ num_reg_id_trib: 'ABC-123', residencia_fiscal: 'USA' }] })),
    'comercio_exterior.propietario[0].num_reg_id_trib',
    'CCE175',
  ],
  ["the receptor's tax id in the complement", I((_b, c) => (c.receptor.num_reg_id_trib = '123456789')), 'comercio_exterior.receptor.num_reg_id_trib', 'CCE176'],
  ["no receptor's address", I((_b, c) => delete c.receptor), 'comercio_exterior.receptor.domicilio', 'CCE181'],
  ['the receptor in a colonia not of its código postal', receptorMx({ colonia: '9999' }), 'comercio_exterior.receptor.domicilio.colonia', 'CCE182'],
  ['the receptor in a localidad not of its estado', receptorMx({ localidad: '98' }), 'comercio_exterior.receptor.domicilio.localidad', 'CCE183'],
  ['the receptor in a municipio not of its estado', receptorMx({ municipio: '999' }), 'comercio_exterior.receptor.domicilio.municipio', 'CCE184'],
  [
    'the receptor in a US state that does not exist',
    I((_b, c) => (c.receptor.domicilio.estado = 'ZZ')),
    'comercio_exterior.receptor.domicilio.estado',
    'CCE185',
  ],
  [
    "the receptor's ZIP code not in the US pattern",
    I((_b, c) => (c.receptor.domicilio.codigo_postal = 'ABCDE')),
    'comercio_exterior.receptor.domicilio.codigo_postal',
    'CCE186',
  ],
  ['the receptor at a código postal of another estado', receptorMx({ codigo_postal: '06600' }), 'comercio_exterior.receptor.domicilio.codigo_postal', 'CCE187'],
  // Destinatario.
  [
    'a Traslado to two destinatarios',
    T((_b, c) => (c.destinatario = [AUSTIN, AUSTIN].map((d) => ({ domicilio: [d] })))),
    'comercio_exterior.destinatario',
    'CCE188',
  ],
  [
    "a destinatario's tax id not in its country's pattern",
    destinatario(AUSTIN, { num_reg_id_trib: 'ABC-123' }),
    'comercio_exterior.destinatario[0].num_reg_id_trib',
    'CCE190',
  ],
  [
    'a destinatario in a colonia not of its código postal',
    destinatario({ ...MTY, colonia: '9999' }),
    'comercio_exterior.destinatario[0].domicilio[0].colonia',
    'CCE191',
  ],
  [
    'a destinatario in a localidad not of its estado',
    destinatario({ ...MTY, localidad: '98' }),
    'comercio_exterior.destinatario[0].domicilio[0].localidad',
    'CCE192',
  ],
  [
    'a destinatario in a municipio not of its estado',
    destinatario({ ...MTY, municipio: '999' }),
    'comercio_exterior.destinatario[0].domicilio[0].municipio',
    'CCE193',
  ],
  [
    'a destinatario in a US state that does not exist',
    destinatario({ ...AUSTIN, estado: 'ZZ' }),
    'comercio_exterior.destinatario[0].domicilio[0].estado',
    'CCE194',
  ],
  [
    "a destinatario's ZIP code not in the US pattern",
    destinatario({ ...AUSTIN, codigo_postal: '7870' }),
    'comercio_exterior.destinatario[0].domicilio[0].codigo_postal',
    'CCE195',
  ],
  [
    'a destinatario at a código postal of another estado',
    destinatario({ ...MTY, codigo_postal: '06600' }),
    'comercio_exterior.destinatario[0].domicilio[0].codigo_postal',
    'CCE196',
  ],
  [
    'a destinatario without an address',
    I((_b, c) => (c.destinatario = [{ nombre: 'Warehouse', domicilio: [] }])),
    'comercio_exterior.destinatario[0].domicilio',
    undefined,
  ],
  // Mercancías.
  ['a concepto without no_identificacion', I((b) => delete b.conceptos[1].no_identificacion), 'conceptos[1].no_identificacion', 'CCE197'],
  [
    'a mercancía no concepto bills',
    I((_b, c) => (c.mercancias[2].no_identificacion = 'OTRO-99')),
    'comercio_exterior.mercancias[2].no_identificacion',
    'CCE198',
  ],
  ['a concepto without its mercancía', I((_b, c) => c.mercancias.pop()), 'conceptos[3].no_identificacion', 'CCE199'],
  [
    'one no_identificacion twice with one fracción',
    I((_b, c) => c.mercancias.splice(1, 0, { ...c.mercancias[0], valor_dolares: '500.00' }) && (c.mercancias[0].valor_dolares = '1229.00')),
    'comercio_exterior.mercancias[1].fraccion_arancelaria',
    'CCE200',
  ],
  [
    'split mercancías whose valor_dolares do not add up to the conceptos',
    I((_b, c) => {
      c.mercancias[0] = { no_identificacion: 'CAFE-01', fraccion_arancelaria: '0901110300', valor_dolares: '1000.00' };
      c.mercancias.splice(1, 0, { no_identificacion: 'CAFE-01', fraccion_arancelaria: '0901120100', valor_dolares: '500.00' });
      for (const m of c.mercancias) for (const k of Object.keys(triplet)) delete m[k];
    }),
    'comercio_exterior.mercancias[0].valor_dolares',
    'CCE205',
  ],
  ['goods without fracción', I((_b, c) => delete c.mercancias[1].fraccion_arancelaria), 'comercio_exterior.mercancias[1].fraccion_arancelaria', 'CCE206'],
  [
    'a service (unidad 99) with a fracción',
    I((_b, c) => Object.assign(c.mercancias[1], { unidad_aduana: '99' })),
    'comercio_exterior.mercancias[1].fraccion_arancelaria',
    'CCE207',
  ],
  [
    'a fracción not in c_FraccionArancelaria',
    I((_b, c) => (c.mercancias[0].fraccion_arancelaria = '0101010199')),
    'comercio_exterior.mercancias[0].fraccion_arancelaria',
    'CCE208',
  ],
  [
    "a unidad_aduana other than the fracción's UMT",
    I((_b, c) => (c.mercancias[0].unidad_aduana = '06')),
    'comercio_exterior.mercancias[0].unidad_aduana',
    'CCE209',
  ],
  [
    'cantidad_aduana without valor_unitario_aduana',
    I((_b, c) => delete c.mercancias[2].valor_unitario_aduana),
    'comercio_exterior.mercancias[2].valor_unitario_aduana',
    'CCE213',
  ],
  [
    'the aduana triplet on some mercancías only',
    I((_b, c) => {
      for (const k of Object.keys(triplet)) delete c.mercancias[2][k];
    }),
    'comercio_exterior.mercancias[2].cantidad_aduana',
    'CCE214',
  ],
  [
    'valor_unitario_aduana 0 on goods',
    I((_b, c) => (c.mercancias[2].valor_unitario_aduana = '0')),
    'comercio_exterior.mercancias[2].valor_unitario_aduana',
    'CCE215',
  ],
  [
    'valor_dolares not cantidad_aduana × valor_unitario_aduana',
    I((_b, c) => (c.mercancias[0].valor_unitario_aduana = '10.00')),
    'comercio_exterior.mercancias[0].valor_dolares',
    'CCE216',
  ],
  [
    "valor_dolares other than the concepto's value",
    I((_b, c) => (c.mercancias[1].valor_dolares = '2999.00')),
    'comercio_exterior.mercancias[1].valor_dolares',
    'CCE217',
  ],
  [
    'valor_dolares with five decimals',
    I((_b, c) => (c.mercancias[1].valor_dolares = '3000.00001')),
    'comercio_exterior.mercancias[1].valor_dolares',
    undefined,
  ],
];

/** Rows and folios: a refused request stores no CFDI and takes no folio. */
const stored = async () => [await t.count(cfdis), (await t.db.select({ next: series.nextFolio }).from(series)).reduce((n, s) => n + s.next, 0)];

describe('invalid Comercio Exterior requests → 400 naming the field and the rule, nothing stored', () => {
  expect(CASES.filter(([, , , rule]) => rule !== undefined).length).toBeGreaterThanOrEqual(40);

  test('the bases validate', async () => {
    for (const body of Object.values(EXAMPLES))
      expect((await t.call('POST', '/cfdis/validate', { token: key, body })).json).toEqual({ valid: true, errors: [], warnings: [] });
  });

  test.each(CASES)('%s', async (_name, build, field, rule) => {
    const body = build();
    const before = await stored();
    const res = await t.call('POST', '/cfdis', { token: key, body });
    expect(res.status).toBe(400);
    const details = res.json.error.details as { field: string; issue: string; rule?: string }[];
    expect(details.map((d) => `${d.field} ${d.rule}`)).toContain(`${field} ${rule}`);
    const detail = details.find((d) => d.field === field && d.rule === rule)!;
    expect(detail.issue.length).toBeGreaterThan(10);
    expect(await stored()).toEqual(before);
    // /cfdis/validate agrees: the same errors in its verdict, or the same 400 for a malformed request.
    const check = await t.call('POST', '/cfdis/validate', { token: key, body });
    if (check.status === 200) {
      expect(check.json.valid).toBe(false);
      expect(check.json.errors).toEqual(details);
    } else {
      expect(check.status).toBe(400);
      expect(check.json.error.details).toEqual(details);
    }
  });
});

describe('a 20-mercancía export in MXN: ValorDolares and TotalUSD recomputed here, without the engine', () => {
  /** Amounts as integers of 10^-scale, so nothing here shares the engine's decimal code. */
  const TC_USD = 172345n; // 17.2345, 4 decimals
  const items = Array.from({ length: 20 }, (_, i) => {
    const cantidad = BigInt(i * 3 + 1);
    const centavos = 123457n + BigInt(i) * 9713n; // valor_unitario in centavos
    return { id: `SKU-${String(i + 1).padStart(2, '0')}`, cantidad, centavos, importe: cantidad * centavos };
  });
  const text2 = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  /** importe (centavos) ÷ 17.2345, in cents, half up: importe × 10^4 / 172345 cents. */
  const dollars = (importe: bigint) => (importe * 10_000n * 2n + TC_USD) / (2n * TC_USD);

  test('each ValorDolares is the importe in dollars to the cent and inside SAT’s window; TotalUSD is their sum', async () => {
    const body = {
      tipo: 'I',
      exportacion: '02',
      forma_pago: '03',
      metodo_pago: 'PUE',
      moneda: 'MXN',
      receptor: EXAMPLES.ingreso.receptor,
      conceptos: items.map((x) => ({
        clave_prod_serv: '50201706',
        no_identificacion: x.id,
        clave_unidad: 'KGM',
        descripcion: `Café de altura, lote ${x.id}`,
        cantidad: String(x.cantidad),
        valor_unitario: text2(x.centavos),
        objeto_imp: '02',
        impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.000000' }] },
      })),
      comercio_exterior: {
        tipo_cambio_usd: '17.2345',
        incoterm: 'EXW',
        emisor: INGRESO_CCE.emisor,
        receptor: INGRESO_CCE.receptor,
        mercancias: items.map((x) => ({ no_identificacion: x.id, fraccion_arancelaria: '0901110300' })),
      },
    };
    const { root, json } = await stampChecked(body);
    const node = cce(root);
    const written = childrenNamed(child(node, 'cce20:Mercancias')!, 'cce20:Mercancia');
    expect(written.map((m) => m.attrs.NoIdentificacion)).toEqual(items.map((x) => x.id));
    let total = 0n;
    for (const [i, x] of items.entries()) {
      const expected = dollars(x.importe);
      total += expected;
      expect([x.id, written[i]!.attrs.ValorDolares]).toEqual([x.id, text2(expected)]);
      // SAT's window: (importe ± half a centavo) ÷ (TipoCambioUSD ∓ half its last digit), compared at the cent, in
      // 10^-10 dollars: pesos (10·I ± 5) / 1000 over a rate (10·TC ∓ 5) / 10^5 is (10·I ± 5) · 100 / (10·TC ∓ 5) dollars.
      const low = ((x.importe * 10n - 5n) * 10n ** 12n) / (TC_USD * 10n + 5n);
      const high = ((x.importe * 10n + 5n) * 10n ** 12n) / (TC_USD * 10n - 5n);
      const value = expected * 10n ** 8n;
      expect(value >= low - 5n * 10n ** 7n && value <= high + 5n * 10n ** 7n).toBe(true);
    }
    expect(node.attrs.TotalUSD).toBe(text2(total));
    expect(node.attrs.TipoCambioUSD).toBe('17.2345');
    expect(json.comercio_exterior.total_usd).toBe(Number(text2(total)));
    expect(json.comercio_exterior.num_mercancias).toBe(20);
  });
});
