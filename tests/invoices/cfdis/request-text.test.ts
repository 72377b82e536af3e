import { beforeAll, describe, expect, test } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { child, parseXml } from '../../../src/cfdi/xml.ts';
import { NOMINAS } from '../../cfdi/corpus.ts';
import { concepto, createTestApp, ICV, ingreso, issuer, READY } from '../../helpers.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';

/**
 * Issue 18 (1, 2): which characters a request's text may hold, checked once over the whole body. Characters XML 1.0
 * does not allow are refused in every field with the field and the character named; tab, LF and CR are accepted in a
 * descripcion (SAT's XSD collapses its whitespace) and the XML, the cadena and the seal agree.
 */
const t = await createTestApp();
let key = '';
let ppdId = '';

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  const ppd = await t.call('POST', '/cfdis', { token: key, body: ingreso({ metodo_pago: 'PPD', forma_pago: '99' }) });
  expect(ppd.status).toBe(201);
  ppdId = ppd.json.id;
});

const pago = (over: Record<string, unknown> = {}) => ({
  tipo: 'P',
  receptor: { ...ICV, uso_cfdi: 'CP01' },
  pagos: [
    {
      fecha_pago: localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501'),
      forma_pago: '03',
      moneda: 'MXN',
      monto: '1.00',
      documentos: [{ cfdi_id: ppdId, imp_pagado: '1.00' }],
      ...over,
    },
  ],
});
const nomina = (concepto: string) => {
  const body = structuredClone(NOMINAS[0]![1]) as { nomina: { percepciones: { concepto: string }[] } };
  body.nomina.percepciones[0]!.concepto = concepto;
  return body;
};

describe('characters outside XML 1.0 are refused in every text field, naming the field and the character', () => {
  const cases: [string, (bad: string) => unknown, string][] = [
    ['descripcion', (bad) => ingreso({ conceptos: [concepto({ descripcion: `Servicio${bad}` })] }), 'conceptos[0].descripcion'],
    ['receptor nombre', (bad) => ingreso({ receptor: { ...ICV, nombre: `INMOBILIARIA${bad}CVA` } }), 'receptor.nombre'],
    ['no_identificacion', (bad) => ingreso({ conceptos: [concepto(), concepto({ no_identificacion: `SKU${bad}` })] }), 'conceptos[1].no_identificacion'],
    ['condiciones_de_pago', (bad) => ingreso({ condiciones_de_pago: `Contado${bad}` }), 'condiciones_de_pago'],
    ['a nómina concepto', (bad) => nomina(`Sueldo${bad}`), 'nomina.percepciones[0].concepto'],
    ['a pago num_operacion', (bad) => pago({ num_operacion: `OP${bad}1` }), 'pagos[0].num_operacion'],
  ];
  for (const [name, body, field] of cases) {
    for (const [bad, named] of [
      ['\uFFFE', 'U+FFFE'],
      ['\uFFFF', 'U+FFFF'],
      ['\uD800', 'U+D800'],
      ['\u0001', 'U+0001'],
    ] as const) {
      test(`${name} with ${named} → 400 on POST /cfdis and on /cfdis/validate`, async () => {
        for (const path of ['/cfdis', '/cfdis/validate']) {
          const res = await t.call('POST', path, { token: key, body: body(bad) });
          expect(res.status).toBe(400);
          const detail = (res.json.error.details as { field: string; issue: string }[]).find((d) => d.field === field);
          if (!detail) throw new Error(`no detail for ${field}: ${res.text}`);
          expect(detail.issue).toContain(named);
        }
      });
    }
  }

  test('the valid bodies of those cases are stamped (so the refusals above are about the character)', async () => {
    for (const [, body] of cases) {
      const res = await t.call('POST', '/cfdis', { token: key, body: body('') });
      if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    }
  });

  test('every offending field is listed at once, with the other problems of the request', async () => {
    const res = await t.call('POST', '/cfdis', {
      token: key,
      body: ingreso({ condiciones_de_pago: 'A\uFFFF', moneda: 1, conceptos: [concepto({ descripcion: 'B\uFFFE', unidad: 'C|D' })] }),
    });
    expect(res.status).toBe(400);
    const fields = (res.json.error.details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['conceptos[0].descripcion', 'conceptos[0].unidad', 'condiciones_de_pago', 'moneda']);
  });

  test('a client (which becomes a receptor) is refused the same way, on create and on update', async () => {
    const created = await t.call('POST', '/clients', { token: key, body: { ...ICV, nombre: 'INMOBILIARIA\uFFFECVA' } });
    expect(created.status).toBe(400);
    expect(created.json.error.details).toContainEqual({ field: 'nombre', issue: expect.stringContaining('U+FFFE') });
    const ok = await t.call('POST', '/clients', { token: key, body: ICV });
    expect(ok.status).toBe(201);
    const patched = await t.call('PATCH', `/clients/${ok.json.id}`, { token: key, body: { num_reg_id_trib: 'X\uDFFF' } });
    expect(patched.status).toBe(400);
    expect(patched.json.error.details).toContainEqual({ field: 'num_reg_id_trib', issue: expect.stringContaining('U+DFFF') });
  });

  test("the issuer's name and a serie, written into every CFDI, are refused the same way", async () => {
    const register = await t.call('POST', '/auth/register', {
      body: {
        email: `fffe-${crypto.randomUUID()}@example.com`,
        password: 'a-long-password-1',
        nombre: 'Ana',
        tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA\uFFFEKEMPER', regimen_fiscal: '601', codigo_postal: '42501' },
      },
    });
    expect(register.status).toBe(422);
    expect(register.json.error.details).toContainEqual({ field: 'tenant.nombre', issue: expect.stringContaining('U+FFFE') });
    const admin = await issuer(t);
    const patched = await t.call('PATCH', '/tenants/me', { token: admin.token, body: { nombre: 'ESCUELA KEMPER\uFFFF' } });
    expect(patched.status).toBe(422);
    expect(patched.json.error.details).toContainEqual({ field: 'nombre', issue: expect.stringContaining('U+FFFF') });
    const serie = await t.call('POST', '/series', { token: key, body: { serie: 'B\uFFFE' } });
    expect(serie.status).toBe(400);
    expect(serie.json.error.details).toContainEqual({ field: 'serie', issue: expect.stringContaining('U+FFFE') });
  });

  test('other fields still refuse tab and newline; the emoji (a valid surrogate pair) is accepted', async () => {
    const res = await t.call('POST', '/cfdis', { token: key, body: ingreso({ receptor: { ...ICV, nombre: 'INMOBILIARIA\tCVA' } }) });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toContainEqual({ field: 'receptor.nombre', issue: expect.stringContaining('U+0009') });
    const emoji = await t.call('POST', '/cfdis/validate', { token: key, body: ingreso({ conceptos: [concepto({ descripcion: 'Pastel 🎂' })] }) });
    expect(emoji.json).toMatchObject({ valid: true });
  });
});

describe('bidi controls and zero-width characters are refused in fiscal text, each named', () => {
  // Valid XML, but the stored text would read differently once printed: "RFC 123" shown reversed, a hidden space.
  const invisible: [string, string][] = [
    ['\u202E', 'U+202E RIGHT-TO-LEFT OVERRIDE'],
    ['\u202A', 'U+202A LEFT-TO-RIGHT EMBEDDING'],
    ['\u2066', 'U+2066 LEFT-TO-RIGHT ISOLATE'],
    ['\u2069', 'U+2069 POP DIRECTIONAL ISOLATE'],
    ['\u200B', 'U+200B ZERO WIDTH SPACE'],
    ['\u200D', 'U+200D ZERO WIDTH JOINER'],
    ['\u200F', 'U+200F RIGHT-TO-LEFT MARK'],
    ['\u061C', 'U+061C ARABIC LETTER MARK'],
    ['\u2060', 'U+2060 WORD JOINER'],
    ['\u2064', 'U+2064 INVISIBLE PLUS'],
    ['\uFEFF', 'U+FEFF ZERO WIDTH NO-BREAK SPACE'],
  ];
  for (const [bad, named] of invisible) {
    test(`${named} in a descripcion, a receptor nombre and a pago num_operacion → 400`, async () => {
      for (const [body, field] of [
        [ingreso({ conceptos: [concepto({ descripcion: `Servicio${bad} mensual` })] }), 'conceptos[0].descripcion'],
        [ingreso({ receptor: { ...ICV, nombre: `INMOBILIARIA${bad}CVA` } }), 'receptor.nombre'],
        [pago({ num_operacion: `OP${bad}1` }), 'pagos[0].num_operacion'],
      ] as const) {
        const res = await t.call('POST', '/cfdis/validate', { token: key, body });
        expect(res.status).toBe(400);
        expect(res.json.error.details).toContainEqual({ field, issue: expect.stringContaining(named) });
      }
    });
  }

  test("a client, the issuer's name and a serie refuse them too; a plain emoji stays accepted, a ZWJ emoji sequence does not", async () => {
    const client = await t.call('POST', '/clients', { token: key, body: { ...ICV, nombre: 'INMOBILIARIA\u202ECVA' } });
    expect(client.status).toBe(400);
    expect(client.json.error.details).toContainEqual({ field: 'nombre', issue: expect.stringContaining('U+202E') });
    const admin = await issuer(t);
    const tenant = await t.call('PATCH', '/tenants/me', { token: admin.token, body: { nombre: 'ESCUELA\u200BKEMPER' } });
    expect(tenant.status).toBe(422);
    expect(tenant.json.error.details).toContainEqual({ field: 'nombre', issue: expect.stringContaining('U+200B') });
    const serie = await t.call('POST', '/series', { token: key, body: { serie: 'B\uFEFFC' } });
    expect(serie.status).toBe(400);
    expect(serie.json.error.details).toContainEqual({ field: 'serie', issue: expect.stringContaining('U+FEFF') });
    expect(
      (await t.call('POST', '/cfdis/validate', { token: key, body: ingreso({ conceptos: [concepto({ descripcion: 'Pastel 🎂' })] }) })).json,
    ).toMatchObject({ valid: true });
    const family = await t.call('POST', '/cfdis/validate', { token: key, body: ingreso({ conceptos: [concepto({ descripcion: 'Familia 👩\u200D👧' })] }) });
    expect(family.status).toBe(400);
    expect(family.json.error.details).toContainEqual({ field: 'conceptos[0].descripcion', issue: expect.stringContaining('U+200D ZERO WIDTH JOINER') });
  });
});

describe('C1 controls, the soft hyphen, the line separators and the Hangul fillers are refused too, each named (issue 35)', () => {
  // Valid XML that prints as nothing, a blank or a line break: the stored text would read differently from the shown one.
  const blank: [string, string][] = [
    ['\u0080', 'U+0080'],
    ['\u0085', 'U+0085'],
    ['\u009F', 'U+009F'],
    ['\u00AD', 'U+00AD SOFT HYPHEN'],
    ['\u2028', 'U+2028 LINE SEPARATOR'],
    ['\u2029', 'U+2029 PARAGRAPH SEPARATOR'],
    ['\u115F', 'U+115F HANGUL CHOSEONG FILLER'],
    ['\u1160', 'U+1160 HANGUL JUNGSEONG FILLER'],
    ['\u3164', 'U+3164 HANGUL FILLER'],
    ['\uFFA0', 'U+FFA0 HALFWIDTH HANGUL FILLER'],
  ];
  for (const [bad, named] of blank) {
    test(`${named} in a descripcion (even there), a receptor nombre and a receipt's concepto → 400 naming the field`, async () => {
      for (const [path, body, field] of [
        ['/cfdis/validate', ingreso({ conceptos: [concepto({ descripcion: `Servicio${bad} mensual` })] }), 'conceptos[0].descripcion'],
        ['/cfdis/validate', ingreso({ receptor: { ...ICV, nombre: `INMOBILIARIA${bad}CVA` } }), 'receptor.nombre'],
        ['/receipts', { forma_pago: '01', conceptos: [concepto({ no_identificacion: `SKU${bad}1` })] }, 'conceptos[0].no_identificacion'],
      ] as const) {
        const res = await t.call('POST', path, { token: key, body });
        expect(res.status).toBe(400);
        expect(res.json.error.details).toContainEqual({ field, issue: expect.stringContaining(named) });
      }
    });
  }

  test('their visible neighbours stay accepted: U+00A0 (no-break space), U+00A1, a Hangul syllable', async () => {
    for (const text of ['Servicio\u00A0mensual', '\u00A1Oferta!', 'Kimchi \uAE40\uCE58']) {
      const res = await t.call('POST', '/cfdis/validate', { token: key, body: ingreso({ conceptos: [concepto({ descripcion: text })] }) });
      expect(res.json).toMatchObject({ valid: true });
    }
  });
});

describe('tab, newline and carriage return in a descripcion', () => {
  test("are stamped as character references; the XML is XSD-valid, our cadena equals SAT's XSLT and the Sello verifies", async () => {
    const descripcion = 'Servicio\tde facturación\nmensual\r\nnoviembre';
    const res = await t.call('POST', '/cfdis', { token: key, body: ingreso({ conceptos: [concepto({ descripcion })] }) });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    const download = await t.app.request(`/api/v1/cfdis/${res.json.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } });
    const xml = await download.text();
    expect(xml).toContain('Descripcion="Servicio&#9;de facturación&#10;mensual&#13;&#10;noviembre"');
    const xsd = await validateAgainstSatXsd(xml);
    expect(xsd.errors).toEqual([]);
    const root = parseXml(xml);
    const ours = cadenaOriginal(root);
    expect(ours).toBe(await cadenaFromSatXslt(xml));
    expect(ours).toContain('|Servicio de facturación mensual noviembre|');
    const certificado = Buffer.from(root.attrs.Certificado!, 'base64');
    const publicKey = createPublicKey(new X509Certificate(certificado).publicKey.export({ type: 'spki', format: 'pem' }));
    expect(verify('sha256', Buffer.from(ours, 'utf8'), publicKey, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
    expect(child(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto')!.attrs.Descripcion).toBe(descripcion);
    const pdf = await t.app.request(`/api/v1/cfdis/${res.json.uuid}/pdf`, { headers: { authorization: `Bearer ${key}` } });
    expect(pdf.status).toBe(200);
  });
});
