import { beforeAll, describe, expect, test } from 'bun:test';
import { localDateTime, zonedToUtc } from '../../../src/cfdi/time.ts';
import { child, parseXml } from '../../../src/cfdi/xml.ts';
import { concepto, createTestApp, ICV, ingreso, issuer, READY } from '../../helpers.ts';

/** Issue 18 (3–7): payment dates, receptor RFCs, a forgotten tax block, rule codes on every refusal, float noise. */
const t = await createTestApp();
type Detail = { field: string; issue: string; rule?: string };
let key = '';

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
});

async function xmlOf(uuid: string): Promise<string> {
  const res = await t.app.request(`/api/v1/cfdis/${uuid}/xml`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return res.text();
}
const detailOf = (res: { json: { error: { details: Detail[] } }; text: string }, field: string): Detail => {
  const detail = res.json.error.details.find((d) => d.field === field);
  if (!detail) throw new Error(`no detail for ${field}: ${res.text}`);
  return detail;
};

describe('amounts sent as JSON numbers with binary floating-point noise (7)', () => {
  for (const [name, value] of [
    ['11.370000000000001', 11.370000000000001],
    ['10 + 1.37', 10 + 1.37],
  ] as const) {
    for (const field of ['valor_unitario', 'cantidad'] as const) {
      test(`${field} ${name} is read as 11.37`, async () => {
        const res = await t.call('POST', '/cfdis', { token: key, body: ingreso({ conceptos: [concepto({ [field]: value })] }) });
        if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
        const c = child(child(parseXml(await xmlOf(res.json.uuid)), 'cfdi:Conceptos')!, 'cfdi:Concepto')!;
        expect(c.attrs[field === 'cantidad' ? 'Cantidad' : 'ValorUnitario']).toBe('11.37');
        expect(c.attrs.Importe).toBe(field === 'cantidad' ? '1137.00' : '11.37');
      });
    }
  }

  test('a real 7th decimal (11.3700001) is still refused, and a string keeps the strict rule', async () => {
    for (const value of [11.3700001, '11.370000000000001']) {
      const res = await t.call('POST', '/cfdis/validate', { token: key, body: ingreso({ conceptos: [concepto({ valor_unitario: value })] }) });
      expect(res.status).toBe(400);
      expect(detailOf(res, 'conceptos[0].valor_unitario').issue).toContain('6 decimals');
    }
  });
});

describe('JSON numbers with more digits than a double keeps (issue 19)', () => {
  // Sent as JSON text: JSON.parse turns these digits into a different number before any schema sees them.
  const post = (path: string, body: Record<string, unknown>, replace: [string, string]) =>
    t.app.request(`/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body).replace(replace[0], replace[1]),
    });
  const refusal = async (res: Response, field: string) => {
    expect(res.status).toBe(400);
    const details = ((await res.json()) as { error: { details: Detail[] } }).error.details;
    expect(details).toContainEqual({ field, issue: expect.stringContaining('send it as a string') });
  };

  test('an amount above 2^53, or with 17 significant digits, is refused naming the field; as a string it is taken digit for digit', async () => {
    for (const digits of ['9007199254740993', '12345678901.123456']) {
      await refusal(
        await post('/cfdis/validate', ingreso({ conceptos: [concepto({ valor_unitario: 1 })] }), ['"valor_unitario":1', `"valor_unitario":${digits}`]),
        'conceptos[0].valor_unitario',
      );
      await refusal(
        await post('/cfdis/validate', ingreso({ conceptos: [concepto({ cantidad: 1 })] }), ['"cantidad":1', `"cantidad":${digits}`]),
        'conceptos[0].cantidad',
      );
    }
    const asString = await t.call('POST', '/cfdis', { token: key, body: ingreso({ conceptos: [concepto({ valor_unitario: '12345678901.123456' })] }) });
    if (asString.status !== 201) throw new Error(`${asString.status} ${asString.text}`);
    expect(child(child(parseXml(await xmlOf(asString.json.uuid)), 'cfdi:Conceptos')!, 'cfdi:Concepto')!.attrs.ValorUnitario).toBe('12345678901.123456');
    // 15 significant digits and safe integers are exact: still accepted as numbers.
    const exact = await post('/cfdis/validate', ingreso({ conceptos: [concepto({ valor_unitario: 1 })] }), [
      '"valor_unitario":1',
      '"valor_unitario":123456789.123456',
    ]);
    expect(await exact.json()).toMatchObject({ valid: true });
  });

  test('an integer field above 2^53 − 1 is refused naming the field: anio (send it as a string), folio_inicial (its bound, not "not an integer")', async () => {
    const global = ingreso({
      receptor: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
      informacion_global: { periodicidad: '01', meses: '01', anio: 1 },
    });
    await refusal(await post('/cfdis/validate', global, ['"anio":1', '"anio":9007199254740993']), 'informacion_global.anio');
    const serie = await post('/series', { serie: 'BIG', folio_inicial: 1 }, ['"folio_inicial":1', '"folio_inicial":9007199254740993']);
    expect(serie.status).toBe(400);
    expect(((await serie.json()) as { error: { details: Detail[] } }).error.details).toEqual([
      { field: 'folio_inicial', issue: 'must be at most 999999999999999' },
    ]);
  });
});

describe('a payment date without a time (3)', () => {
  test('today, before noon, is accepted and written as the Fecha of the receipt; an earlier day as 12:00:00; tomorrow is refused', async () => {
    const saved = t.clock.now;
    const today = localDateTime(t.clock.now, '42501').slice(0, 10);
    t.clock.now = zonedToUtc(`${today}T09:00:00`, 'America/Mexico_City');
    try {
      const ppd = await t.call('POST', '/cfdis', { token: key, body: ingreso({ metodo_pago: 'PPD', forma_pago: '99' }) });
      expect(ppd.status).toBe(201);
      t.clock.advance(30 * 60_000); // 09:30
      const pago = (fecha_pago: string) => ({
        tipo: 'P',
        receptor: { ...ICV, uso_cfdi: 'CP01' },
        pagos: [{ fecha_pago, forma_pago: '03', moneda: 'MXN', monto: '10.00', documentos: [{ cfdi_id: ppd.json.id, imp_pagado: '10.00' }] }],
      });
      const res = await t.call('POST', '/cfdis', { token: key, body: pago(today) });
      if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
      const root = parseXml(await xmlOf(res.json.uuid));
      const fechaPago = child(child(child(root, 'cfdi:Complemento')!, 'pago20:Pagos')!, 'pago20:Pago')!.attrs.FechaPago;
      expect(root.attrs.Fecha).toBe(`${today}T09:30:00`);
      expect(fechaPago).toBe(`${today}T09:30:00`);

      const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      const earlier = await t.call('POST', '/cfdis', { token: key, body: pago(yesterday) });
      if (earlier.status !== 201) throw new Error(`${earlier.status} ${earlier.text}`);
      expect(earlier.json.pagos[0].fecha_pago).toBe(`${yesterday}T12:00:00`);

      const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const later = await t.call('POST', '/cfdis/validate', { token: key, body: pago(tomorrow) });
      expect(later.json.valid).toBe(false);
      expect(later.json.errors).toContainEqual(expect.objectContaining({ field: 'pagos[0].fecha_pago' }));
    } finally {
      t.clock.now = saved;
    }
  });
});

describe('impossible receptor RFCs (4)', () => {
  const feb31 = 'ICV060231BY0';
  test('a date part that is not a date → 400 naming CFDI40143, on /cfdis, /cfdis/validate, a client and a_cuenta_terceros', async () => {
    for (const path of ['/cfdis', '/cfdis/validate']) {
      const res = await t.call('POST', path, { token: key, body: ingreso({ receptor: { ...ICV, rfc: feb31 } }) });
      expect(res.status).toBe(path === '/cfdis' ? 400 : 200);
      const details = (path === '/cfdis' ? res.json.error.details : res.json.errors) as Detail[];
      expect(details).toContainEqual({ field: 'receptor.rfc', issue: expect.stringContaining('060231 (YYMMDD) is not a date'), rule: 'CFDI40143' });
    }
    const client = await t.call('POST', '/clients', { token: key, body: { ...ICV, rfc: feb31 } });
    expect(client.status).toBe(400);
    expect(client.json.error.details).toContainEqual({ field: 'rfc', issue: expect.stringContaining('not a date'), rule: 'CFDI40143' });
    const terceros = { rfc: 'CVD110230TF6', nombre: 'CV DIGITAL', regimen_fiscal: '601', domicilio_fiscal: '33826' };
    const res = await t.call('POST', '/cfdis', { token: key, body: ingreso({ conceptos: [concepto({ a_cuenta_terceros: terceros })] }) });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toContainEqual({
      field: 'conceptos[0].a_cuenta_terceros.rfc',
      issue: expect.stringContaining('not a date'),
      rule: 'CFDI40187',
    });
  });

  test('a wrong check digit is stamped with a warning naming CFDI40143, on the 201 and on /cfdis/validate', async () => {
    const body = ingreso({ receptor: { ...ICV, rfc: 'ICV060329BY1' } });
    const validated = await t.call('POST', '/cfdis/validate', { token: key, body });
    expect(validated.json.valid).toBe(true);
    expect(validated.json.warnings).toContainEqual(expect.stringMatching(/^receptor\.rfc: the check digit of ICV060329BY1 should be 0.*CFDI40143/));
    const res = await t.call('POST', '/cfdis', { token: key, body });
    expect(res.status).toBe(201);
    expect(res.json.warnings).toEqual(validated.json.warnings);
    const clean = await t.call('POST', '/cfdis/validate', { token: key, body: ingreso() });
    expect(clean.json).toEqual({ valid: true, errors: [], warnings: [] });
  });
});

describe('forma_pago 99 (Por definir) on a PUE invoice (issue 34)', () => {
  const remark = (how: string) => `forma_pago ${how} (Por definir); a PUE invoice should carry the form actually used`;

  test('sent explicitly, it warns as the defaulted one does, on /cfdis/validate and on the 201', async () => {
    for (const [body, how] of [
      [ingreso({ forma_pago: '99' }), 'is 99'],
      [ingreso({ forma_pago: '99', metodo_pago: 'PUE' }), 'is 99'],
      [ingreso({ forma_pago: undefined }), 'defaulted to 99'],
    ] as const) {
      const validated = await t.call('POST', '/cfdis/validate', { token: key, body });
      expect(validated.json).toEqual({ valid: true, errors: [], warnings: [remark(how)] });
      const res = await t.call('POST', '/cfdis', { token: key, body });
      expect(res.status).toBe(201);
      expect(res.json.warnings).toEqual([remark(how)]);
    }
  });

  test('PPD, where 99 is required, and PUE with the form used carry no warning', async () => {
    for (const body of [ingreso({ forma_pago: '99', metodo_pago: 'PPD' }), ingreso({ metodo_pago: 'PPD', forma_pago: undefined }), ingreso()]) {
      const validated = await t.call('POST', '/cfdis/validate', { token: key, body });
      expect(validated.json).toEqual({ valid: true, errors: [], warnings: [] });
    }
  });
});

describe('a concepto without impuestos and without objeto_imp (5)', () => {
  const untaxed = (over: Record<string, unknown> = {}) => concepto({ impuestos: undefined, ...over });
  test('on an Ingreso or an Egreso → 400 naming the field, the choices and CFDI40170, on /cfdis and /cfdis/validate', async () => {
    for (const tipo of ['I', 'E']) {
      const body = ingreso({ tipo, receptor: { ...ICV, uso_cfdi: tipo === 'E' ? 'G02' : 'G03' }, conceptos: [concepto(), untaxed()] });
      const res = await t.call('POST', '/cfdis', { token: key, body });
      expect(res.status).toBe(400);
      const detail = detailOf(res, 'conceptos[1].objeto_imp');
      expect(detail.rule).toBe('CFDI40170');
      expect(detail.issue).toContain('is required when impuestos is not sent');
      for (const choice of [
        '01 (No objeto de impuesto)',
        '03 (Sí objeto del impuesto y no obligado al desglose)',
        '04 (Sí objeto del impuesto y no causa impuesto)',
      ])
        expect(detail.issue).toContain(choice);
      const validated = await t.call('POST', '/cfdis/validate', { token: key, body });
      expect(validated.json.valid).toBe(false);
      expect(validated.json.errors).toContainEqual(detail);
    }
  });

  test("with objeto_imp 01 it is stamped as 01; a Traslado's goods keep the default 01", async () => {
    const res = await t.call('POST', '/cfdis', { token: key, body: ingreso({ conceptos: [untaxed({ objeto_imp: '01' })] }) });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    expect(child(child(parseXml(await xmlOf(res.json.uuid)), 'cfdi:Conceptos')!, 'cfdi:Concepto')!.attrs.ObjetoImp).toBe('01');
    const traslado = {
      tipo: 'T',
      receptor: { ...ICV, uso_cfdi: 'S01' },
      conceptos: [untaxed({ clave_prod_serv: '43211503', clave_unidad: 'H87', valor_unitario: 0 })],
    };
    const moved = await t.call('POST', '/cfdis', { token: key, body: traslado });
    if (moved.status !== 201) throw new Error(`${moved.status} ${moved.text}`);
    expect(child(child(parseXml(await xmlOf(moved.json.uuid)), 'cfdi:Conceptos')!, 'cfdi:Concepto')!.attrs.ObjetoImp).toBe('01');
  });
});

describe('refusals name their SAT rule (6)', () => {
  test('a receptor postal code not in c_CodigoPostal → CFDI40147, on /cfdis, /cfdis/validate and a client', async () => {
    const body = ingreso({ receptor: { ...ICV, domicilio_fiscal: '00000' } });
    const res = await t.call('POST', '/cfdis', { token: key, body });
    expect(res.status).toBe(400);
    expect(detailOf(res, 'receptor.domicilio_fiscal')).toEqual({
      field: 'receptor.domicilio_fiscal',
      issue: '00000 is not in the SAT catalog c_CodigoPostal',
      rule: 'CFDI40147',
    });
    const validated = await t.call('POST', '/cfdis/validate', { token: key, body });
    expect(validated.json.errors).toContainEqual({
      field: 'receptor.domicilio_fiscal',
      issue: '00000 is not in the SAT catalog c_CodigoPostal',
      rule: 'CFDI40147',
    });
    const client = await t.call('POST', '/clients', { token: key, body: { ...ICV, domicilio_fiscal: '00000' } });
    expect(client.json.error.details).toContainEqual({ field: 'domicilio_fiscal', issue: '00000 is not in the SAT catalog c_CodigoPostal', rule: 'CFDI40147' });
  });
});
