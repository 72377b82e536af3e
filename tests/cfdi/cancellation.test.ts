import { describe, expect, test } from 'bun:test';
import {
  buildCancelacionXml,
  cancellationDeadline,
  nextBusinessDay,
  receiverAcceptance,
  signEnveloped,
  verifyEnveloped,
  type CancellationFacts,
} from '../../src/cfdi/cancellation.ts';
import { openPrivateKey, parseCertificate } from '../../src/cfdi/csd.ts';
import { csdFiles } from '../helpers.ts';

/** The cancellation rules of docs/sat-rules.md §6 as pure functions: who must accept, until when, and the signed request. */
const base: CancellationFacts = {
  uuid: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
  tipo: 'I',
  fecha: '2026-03-02T10:00:00',
  fechaTimbrado: '2026-03-02T10:00:05',
  total: '5800.00',
  moneda: 'MXN',
  rfcEmisor: 'EKU9003173C9',
  regimenEmisor: '601',
  rfcReceptor: 'ICV060329BY0',
  sello: 'x',
  informacionGlobal: false,
  relacionados: [],
};
const LATER = '2026-03-20T12:00:00';

describe('receiver acceptance (RMF 2.7.1.35)', () => {
  const cases: [string, Partial<CancellationFacts>, string, boolean][] = [
    ['a $5,800 ingreso to a named receiver, weeks later', {}, LATER, true],
    ['total exactly $1,000', { total: '1000.00' }, LATER, false],
    ['total $1,000.01', { total: '1000.01' }, LATER, true],
    ['USD 60 at 17.50 = $1,050 MXN', { moneda: 'USD', total: '60.00', tipoCambio: '17.50' }, LATER, true],
    ['USD 50 at 17.50 = $875 MXN', { moneda: 'USD', total: '50.00', tipoCambio: '17.50' }, LATER, false],
    ['nómina', { tipo: 'N' }, LATER, false],
    ['egreso', { tipo: 'E' }, LATER, false],
    ['traslado', { tipo: 'T' }, LATER, false],
    ['público en general', { rfcReceptor: 'XAXX010101000' }, LATER, false],
    ['global invoice', { informacionGlobal: true }, LATER, false],
    ['foreign receiver', { rfcReceptor: 'XEXX010101000' }, LATER, false],
    ['RIF issuer', { regimenEmisor: '621' }, LATER, false],
    ['same day as stamping', {}, '2026-03-02T23:59:59', false],
    ['the next business day (Tuesday 3 March)', {}, '2026-03-03T20:00:00', false],
    ['two business days later', {}, '2026-03-04T08:00:00', true],
    ['pago with Total 0 weeks later', { tipo: 'P', total: '0', moneda: 'XXX' }, LATER, true],
  ];
  for (const [name, facts, now, required] of cases) {
    test(`${name} → ${required ? 'needs' : 'no'} acceptance`, () => {
      const r = receiverAcceptance({ ...base, ...facts }, now);
      expect(r.required).toBe(required);
      expect(r.reason.length).toBeGreaterThan(10);
    });
  }

  test('the business day after a Friday is Monday; statutory holidays are skipped', () => {
    expect(nextBusinessDay('2026-11-20')).toBe('2026-11-23'); // Friday → Monday
    expect(nextBusinessDay('2026-11-13')).toBe('2026-11-17'); // Monday 16 Nov 2026 is the third Monday of November
    expect(nextBusinessDay('2026-12-24')).toBe('2026-12-28'); // Christmas, then the weekend
    expect(nextBusinessDay('2026-02-01')).toBe('2026-02-03'); // first Monday of February
    expect(nextBusinessDay('2030-09-30')).toBe('2030-10-02'); // 1 October 2030: transmission of the executive
  });

  test('deadline: 31 March (persona moral) or 30 April (persona física) of the next year', () => {
    expect(cancellationDeadline('2026-12-31T23:00:00', 'EKU9003173C9')).toBe('2027-03-31');
    expect(cancellationDeadline('2026-01-01T00:00:00', 'FUNK671228PH6')).toBe('2027-04-30');
  });
});

describe('the signed cancellation request (docs/sat-rules.md §6.4)', () => {
  const files = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
  const cert = parseCertificate(files.cer);
  const key = { privateKey: openPrivateKey(files.key, files.password, cert), certificateDer: cert.der };

  test('one Folios per UUID, FolioSustitucion only with a value, enveloped RSA-SHA1 signature with the CSD', () => {
    const xml = buildCancelacionXml({
      rfcEmisor: 'EKU9003173C9',
      fecha: '2026-11-21T10:00:00',
      folios: [
        { uuid: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE', motivo: '01', folioSustitucion: 'BBBBBBBB-BBBB-4CCC-8DDD-EEEEEEEEEEEE' },
        { uuid: 'CCCCCCCC-BBBB-4CCC-8DDD-EEEEEEEEEEEE', motivo: '02' },
      ],
    });
    expect(xml).toContain(
      '<Folios><Folio UUID="AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE" Motivo="01" FolioSustitucion="BBBBBBBB-BBBB-4CCC-8DDD-EEEEEEEEEEEE"/></Folios><Folios><Folio UUID="CCCCCCCC-BBBB-4CCC-8DDD-EEEEEEEEEEEE" Motivo="02"/></Folios>',
    );
    const signed = signEnveloped(xml, key);
    expect(signed).toMatch(
      /<\/Folios><Signature xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http:\/\/www.w3.org\/TR\/2001\/REC-xml-c14n-20010315"\/>/,
    );
    expect(signed).toContain('<Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>');
    expect(signed).toContain('<DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/>');
    expect(signed).toContain(`<X509Certificate>${cert.der.toString('base64')}</X509Certificate>`);
    expect(signed).toContain('<X509SerialNumber>292233162870206001759766198462772978647764840758</X509SerialNumber>'); // 0x3330…3416, "30001000000500003416"
    expect(signed).toMatch(/<X509IssuerName>[^<]*CN=AC UAT<\/X509IssuerName>/);
    expect(signed).toMatch(/<RSAKeyValue><Modulus>[A-Za-z0-9+/]+=*<\/Modulus><Exponent>AQAB<\/Exponent><\/RSAKeyValue>/);
    expect(verifyEnveloped(signed, cert.der)).toBe(true);
    expect(verifyEnveloped(signed.replace('Fecha="2026-11-21T10:00:00"', 'Fecha="2026-11-21T10:00:01"'), cert.der)).toBe(false);
    expect(verifyEnveloped(xml, cert.der)).toBe(false); // unsigned
  });

  test("a retención's request (cancelacionretencion): the same document in its own namespace, signed alike", () => {
    const folios = [{ uuid: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE', motivo: '02' as const }];
    const cfdi = buildCancelacionXml({ rfcEmisor: 'EKU9003173C9', fecha: '2026-11-21T10:00:00', folios });
    const retencion = buildCancelacionXml({ rfcEmisor: 'EKU9003173C9', fecha: '2026-11-21T10:00:00', folios }, 'retencion');
    expect(cfdi).toContain('<Cancelacion xmlns="http://cancelacfd.sat.gob.mx"');
    expect(retencion).toBe(cfdi.replace('xmlns="http://cancelacfd.sat.gob.mx"', 'xmlns="http://www.sat.gob.mx/esquemas/retencionpago/1"'));
    const signed = signEnveloped(retencion, key);
    expect(verifyEnveloped(signed, cert.der)).toBe(true);
    expect(verifyEnveloped(signed.replace('http://www.sat.gob.mx/esquemas/retencionpago/1', 'http://cancelacfd.sat.gob.mx'), cert.der)).toBe(false);
  });
});
