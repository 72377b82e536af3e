import { beforeAll, describe, expect, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../src/cfdi/cadena.ts';
import { localDateTime } from '../../src/cfdi/time.ts';
import { tfdCadena, tfdFromNode } from '../../src/cfdi/tfd.ts';
import { child, childrenNamed, parseXml } from '../../src/cfdi/xml.ts';
import { createTestApp, issuer, READY, TEST_ENGINE } from '../helpers.ts';
import { cadenaFromSatXslt, tfdCadenaFromSatXslt, validateAgainstSatXsd } from '../sat/verify.ts';
import { CARTAS_PORTE } from './cartaporte31/corpus.ts';
import { CORPUS, corpusResolver, EGRESOS, NOMINAS, PAGOS, TRASLADOS } from './corpus.ts';

/**
 * Acceptance: every corpus invoice stamps, and the result is checked with SAT's own artefacts: XSD validity,
 * our cadena equal to SAT's XSLT output, Sello verified with the embedded certificate, SelloSAT verified with the
 * sandbox certificate over the TFD cadena (also computed by SAT's XSLT).
 */
const t = await createTestApp();
// The XML does not depend on the database: SAT's XSD and XSLT (most of this file's time) check it in the SQLite pass;
// the PostgreSQL pass checks what that engine stores and answers, and both seals over our cadenas.
const SAT_ARTEFACTS = TEST_ENGINE === 'sqlite';
let token = '';
let sandboxCert: Buffer;

beforeAll(async () => {
  token = (await issuer(t, READY)).key;
  const cert = await t.app.request('/api/v1/sandbox/sat-certificate');
  expect(cert.headers.get('content-type')).toBe('application/pkix-cert');
  sandboxCert = Buffer.from(await cert.arrayBuffer());
});

const resolve = corpusResolver(
  async (body) => {
    const res = await t.call('POST', '/cfdis', { token, body });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.json.uuid as string;
  },
  () => localDateTime(new Date(t.clock.now.getTime() - 2 * 3600_000), '42501'),
);

describe('corpus: stamped invoices pass SAT checks', () => {
  expect(CORPUS.length).toBeGreaterThanOrEqual(25);
  for (const type of [EGRESOS, PAGOS, NOMINAS, TRASLADOS]) expect(type.length).toBeGreaterThanOrEqual(8);
  expect(CARTAS_PORTE.length).toBeGreaterThanOrEqual(20);
  for (const [name, request] of [...CORPUS, ...EGRESOS, ...PAGOS, ...NOMINAS, ...TRASLADOS, ...CARTAS_PORTE]) {
    test(name, async () => {
      const body = await resolve(request);
      const res = await t.call('POST', '/cfdis', { token, body });
      if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
      expect(res.json.status).toBe('vigente');
      expect(res.json.uuid).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
      // No float artefacts: every JSON number prints as a plain decimal of at most 6 decimals (EquivalenciaDR: 10).
      JSON.stringify(res.json, (k, v) => {
        if (typeof v === 'number')
          expect([k, String(v)]).toEqual([k, expect.stringMatching(k === 'equivalencia' ? /^\d+(\.\d{1,10})?$/ : /^\d+(\.\d{1,6})?$/)]);
        return v;
      });

      const download = await t.app.request(`/api/v1/cfdis/${res.json.uuid}/xml`, { headers: { authorization: `Bearer ${token}` } });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('application/xml');
      expect(download.headers.get('content-disposition')).toBe(`attachment; filename=${res.json.uuid}.xml`);
      const xml = await download.text();

      if (SAT_ARTEFACTS) {
        const xsd = await validateAgainstSatXsd(xml);
        expect(xsd.errors).toEqual([]);
        expect(xsd.valid).toBe(true);
      }

      const root = parseXml(xml);
      const ours = cadenaOriginal(root);
      if (SAT_ARTEFACTS) expect(ours).toBe(await cadenaFromSatXslt(xml));

      const certificado = Buffer.from(root.attrs.Certificado!, 'base64');
      const key = createPublicKey(new X509Certificate(certificado).publicKey.export({ type: 'spki', format: 'pem' }));
      expect(verify('sha256', Buffer.from(ours, 'utf8'), key, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
      expect(root.attrs.NoCertificado).toBe('30001000000500003416');

      const tfd = tfdFromNode(child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!);
      expect(tfd.uuid).toBe(res.json.uuid);
      expect(tfd.selloCfd).toBe(root.attrs.Sello!);
      const tfdChain = SAT_ARTEFACTS ? await tfdCadenaFromSatXslt(xml) : tfdCadena(tfd);
      expect(tfdCadena(tfd)).toBe(tfdChain);
      expect(res.json.cadena_original_sat).toBe(tfdChain);
      const satKey = createPublicKey(new X509Certificate(sandboxCert).publicKey.export({ type: 'spki', format: 'pem' }));
      expect(verify('sha256', Buffer.from(tfdChain, 'utf8'), satKey, Buffer.from(tfd.selloSat, 'base64'))).toBe(true);
      expect(res.json.certificado_sat).toBe(tfd.noCertificadoSat);
      expect(res.json.sello_sat).toBe(tfd.selloSat);

      // The JSON agrees with the XML.
      expect(String(res.json.total)).toBe(String(Number(root.attrs.Total)));
      expect(String(res.json.subtotal)).toBe(String(Number(root.attrs.SubTotal)));
      expect(root.attrs.TipoDeComprobante).toBe(request.tipo as string);
      // The complement the type requires is there, declared on the root with its schemaLocation.
      const complement = { P: 'pago20:Pagos', N: 'nomina12:Nomina' }[request.tipo as string];
      if (complement) {
        expect(child(child(root, 'cfdi:Complemento')!, complement)).toBeDefined();
        expect(root.attrs['xsi:schemaLocation']).toContain(request.tipo === 'P' ? 'Pagos20.xsd' : 'nomina12.xsd');
      }
      if (request.tipo === 'N') {
        const n = child(child(root, 'cfdi:Complemento')!, 'nomina12:Nomina')!.attrs;
        const asNumber = (v: string | undefined) => (v === undefined ? undefined : Number(v));
        expect(res.json.nomina).toEqual({
          total_percepciones: asNumber(n.TotalPercepciones),
          total_deducciones: asNumber(n.TotalDeducciones),
          total_otros_pagos: asNumber(n.TotalOtrosPagos),
        });
      }
      const cartaPorte = child(child(root, 'cfdi:Complemento') ?? root, 'cartaporte31:CartaPorte');
      expect(cartaPorte !== undefined).toBe(request.carta_porte !== undefined);
      if (cartaPorte) {
        expect(root.attrs['xmlns:cartaporte31']).toBe('http://www.sat.gob.mx/CartaPorte31');
        expect(root.attrs['xsi:schemaLocation']).toContain(
          'http://www.sat.gob.mx/CartaPorte31 http://www.sat.gob.mx/sitio_internet/cfd/CartaPorte/CartaPorte31.xsd',
        );
        const mercancias = child(cartaPorte, 'cartaporte31:Mercancias')!.attrs;
        expect(cartaPorte.attrs.IdCCP).toMatch(/^CCC[0-9A-F]{5}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
        expect(res.json.carta_porte).toEqual({
          id_ccp: cartaPorte.attrs.IdCCP,
          total_dist_rec: cartaPorte.attrs.TotalDistRec === undefined ? undefined : Number(cartaPorte.attrs.TotalDistRec),
          peso_bruto_total: Number(mercancias.PesoBrutoTotal),
          unidad_peso: mercancias.UnidadPeso,
          num_total_mercancias: Number(mercancias.NumTotalMercancias),
        });
      }
      if (request.tipo === 'P') {
        const pagos = childrenNamed(child(child(root, 'cfdi:Complemento')!, 'pago20:Pagos')!, 'pago20:Pago');
        expect(res.json.pagos.map((p: { monto: number }) => p.monto)).toEqual(pagos.map((p) => Number(p.attrs.Monto)));
      }
    }, 30_000);
  }
});
