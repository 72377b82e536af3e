import { describe, expect, test } from 'bun:test';
import type { ReceptorInput } from '../../../src/cfdi/input.ts';
import { checkReceptor } from '../../../src/cfdi/rules/receptor.ts';

const FECHA = '2025-06-15T10:00:00';
const MORAL: ReceptorInput = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'G03' };
const FISICA: ReceptorInput = { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000', uso_cfdi: 'D01' };
const PUBLICO: ReceptorInput = { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' };
const EXTRANJERO: ReceptorInput = {
  rfc: 'XEXX010101000',
  nombre: 'ACME INC',
  regimen_fiscal: '616',
  domicilio_fiscal: '42501',
  uso_cfdi: 'S01',
  residencia_fiscal: 'USA',
  num_reg_id_trib: '123456789',
};
const ctx = { fecha: FECHA, lugarExpedicion: '42501' };

const check = (over: Partial<ReceptorInput>, base: ReceptorInput = MORAL, c: Parameters<typeof checkReceptor>[1] = ctx) =>
  checkReceptor({ ...base, ...over }, c);
/** The one problem reported, as field + rule. */
const only = (problems: ReturnType<typeof checkReceptor>) => {
  expect(problems).toHaveLength(1);
  return problems[0]!;
};

describe('checkReceptor: valid receptors', () => {
  test('persona moral 601 with G03', () => expect(checkReceptor(MORAL, ctx)).toEqual([]));
  test('persona física 612 with D01', () => expect(checkReceptor(FISICA, ctx)).toEqual([]));
  test("público en general XAXX010101000, 616, S01, the issuer's postal code", () => expect(checkReceptor(PUBLICO, ctx)).toEqual([]));
  test('foreigner XEXX010101000 resident in USA with a 9-digit NumRegIdTrib', () => expect(checkReceptor(EXTRANJERO, ctx)).toEqual([]));
  test('foreigner without ResidenciaFiscal nor NumRegIdTrib', () => {
    expect(checkReceptor({ ...EXTRANJERO, residencia_fiscal: undefined, num_reg_id_trib: undefined }, ctx)).toEqual([]);
  });
  test('foreigner resident where SAT publishes no tax-id format: any NumRegIdTrib', () => {
    expect(checkReceptor({ ...EXTRANJERO, residencia_fiscal: 'DEU', num_reg_id_trib: 'DE 123/456/78901' }, ctx)).toEqual([]);
  });
  test('RFC with Ñ and &', () => {
    expect(check({ rfc: 'OÑO120726RX3', nombre: 'ORGANICOS ÑAVEZ OSORIO' })).toEqual([]);
    expect(check({ rfc: 'A&A010101AAA' })).toEqual([]);
  });
  test('XAXX with a customer name (practice; only "PUBLICO EN GENERAL" needs InformacionGlobal)', () => {
    expect(check({ nombre: 'JUAN PEREZ' }, PUBLICO)).toEqual([]);
  });
  test('G02 is allowed with 616 (refunds)', () => expect(check({ uso_cfdi: 'G02' }, PUBLICO)).toEqual([]));
  test('626 RESICO applies to both persona types', () => {
    expect(check({ regimen_fiscal: '626' })).toEqual([]);
    expect(check({ regimen_fiscal: '626', uso_cfdi: 'G03' }, FISICA)).toEqual([]);
  });
  test('without lugarExpedicion CFDI40149 is not checked', () => {
    expect(checkReceptor({ ...PUBLICO, domicilio_fiscal: '01000' }, { fecha: FECHA })).toEqual([]);
  });
  test('Pagos with CP01 and Nómina with 605 + CN01', () => {
    expect(check({ uso_cfdi: 'CP01' }, MORAL, { ...ctx, tipo: 'P' })).toEqual([]);
    expect(check({ regimen_fiscal: '605', uso_cfdi: 'CN01' }, FISICA, { ...ctx, tipo: 'N' })).toEqual([]);
  });
});

describe('checkReceptor: RFC and nombre', () => {
  test.each(['', 'ABC', 'EKU9003173C', 'EKU9013173C9', 'EKU9002323C9', 'eku9003173c9', 'EKU9003173C9 ', 'EKU9003173CB'])('bad RFC %p', (rfc) => {
    const problems = check({ rfc });
    expect(problems).toContainEqual({ field: 'receptor.rfc', issue: expect.stringContaining('not a valid RFC') });
    // Persona-type checks are skipped for a broken RFC.
    expect(problems.filter((p) => p.rule === 'CFDI40158' || p.rule === 'CFDI40161')).toEqual([]);
  });
  test('CFDI40146: "PUBLICO EN GENERAL" with an RFC other than XAXX010101000', () => {
    expect(only(check({ nombre: 'PUBLICO EN GENERAL' }))).toMatchObject({ field: 'receptor.rfc', rule: 'CFDI40146' });
    const foreign = check({ nombre: 'PUBLICO EN GENERAL' }, EXTRANJERO);
    expect(only(foreign)).toMatchObject({ field: 'receptor.rfc', rule: 'CFDI40146' });
  });
  test('nombre: empty, blank, over 300 characters, with "|"', () => {
    expect(only(check({ nombre: '' })).field).toBe('receptor.nombre');
    expect(only(check({ nombre: '   ' })).issue).toContain('blank');
    expect(only(check({ nombre: 'A'.repeat(301) })).issue).toContain('300');
    expect(check({ nombre: 'A'.repeat(300) })).toEqual([]);
    expect(only(check({ nombre: 'ACME | OTRA' })).issue).toContain('|');
  });
});

describe('checkReceptor: domicilio fiscal', () => {
  test('must be 5 digits', () => {
    for (const cp of ['1000', '010000', 'ABCDE', '']) expect(only(check({ domicilio_fiscal: cp })).field).toBe('receptor.domicilio_fiscal');
  });
  test('must be in c_CodigoPostal', () => expect(only(check({ domicilio_fiscal: '00000' })).issue).toContain('c_CodigoPostal'));
  test("CFDI40149: a generic RFC uses the issuer's LugarExpedicion", () => {
    expect(only(check({ domicilio_fiscal: '01000' }, PUBLICO))).toMatchObject({ field: 'receptor.domicilio_fiscal', rule: 'CFDI40149' });
    expect(only(check({ domicilio_fiscal: '01000' }, EXTRANJERO))).toMatchObject({ field: 'receptor.domicilio_fiscal', rule: 'CFDI40149' });
    // A registered taxpayer has its own.
    expect(check({ domicilio_fiscal: '01000' })).toEqual([]);
  });
});

describe('checkReceptor: ResidenciaFiscal and NumRegIdTrib', () => {
  test('CFDI40150: ResidenciaFiscal in c_Pais', () => {
    expect(only(check({ residencia_fiscal: 'XYZ' }, EXTRANJERO, ctx).filter((p) => p.rule !== undefined))).toMatchObject({
      field: 'receptor.residencia_fiscal',
      rule: 'CFDI40150',
    });
    expect(only(check({ residencia_fiscal: 'XYZ', num_reg_id_trib: undefined }, EXTRANJERO))).toMatchObject({ rule: 'CFDI40150' });
  });
  test('CFDI40152: ResidenciaFiscal is not MEX', () => {
    expect(only(check({ residencia_fiscal: 'MEX', num_reg_id_trib: undefined }, EXTRANJERO))).toMatchObject({
      field: 'receptor.residencia_fiscal',
      rule: 'CFDI40152',
    });
  });
  test('CFDI40151: no ResidenciaFiscal for a registered RFC or XAXX', () => {
    expect(only(check({ residencia_fiscal: 'USA' }))).toMatchObject({ field: 'receptor.residencia_fiscal', rule: 'CFDI40151' });
    expect(only(check({ residencia_fiscal: 'USA' }, PUBLICO))).toMatchObject({ field: 'receptor.residencia_fiscal', rule: 'CFDI40151' });
  });
  test('CFDI40154: no NumRegIdTrib for a registered RFC or XAXX', () => {
    expect(only(check({ num_reg_id_trib: '123456789' }))).toMatchObject({ field: 'receptor.num_reg_id_trib', rule: 'CFDI40154' });
    expect(only(check({ num_reg_id_trib: '123456789' }, PUBLICO))).toMatchObject({ field: 'receptor.num_reg_id_trib', rule: 'CFDI40154' });
    const both = check({ residencia_fiscal: 'USA', num_reg_id_trib: '123456789' });
    expect(both.map((p) => p.rule).sort()).toEqual(['CFDI40151', 'CFDI40154']);
  });
  test('CFDI40153: NumRegIdTrib needs ResidenciaFiscal', () => {
    expect(only(check({ residencia_fiscal: undefined }, EXTRANJERO))).toMatchObject({ field: 'receptor.residencia_fiscal', rule: 'CFDI40153' });
  });
  test('CFDI40156: NumRegIdTrib in the format of c_Pais', () => {
    for (const id of ['12345678', '1234567890', '12345678A', 'ABCDEFGHI']) {
      expect(only(check({ num_reg_id_trib: id }, EXTRANJERO))).toMatchObject({ field: 'receptor.num_reg_id_trib', rule: 'CFDI40156' });
    }
    expect(only(check({ residencia_fiscal: 'CAN', num_reg_id_trib: '12345' }, EXTRANJERO))).toMatchObject({ rule: 'CFDI40156' });
    expect(check({ residencia_fiscal: 'CAN', num_reg_id_trib: '987654321' }, EXTRANJERO)).toEqual([]);
  });
  test('NumRegIdTrib is 1 to 40 characters', () => {
    expect(only(check({ residencia_fiscal: 'DEU', num_reg_id_trib: 'X'.repeat(41) }, EXTRANJERO)).field).toBe('receptor.num_reg_id_trib');
  });
});

describe('checkReceptor: RegimenFiscalReceptor', () => {
  test('CFDI40157: in c_RegimenFiscal', () => {
    for (const r of ['999', '', '60', 'ABC']) {
      const problems = check({ regimen_fiscal: r });
      expect(problems[0]).toMatchObject({ field: 'receptor.regimen_fiscal', rule: 'CFDI40157' });
      // The UsoCFDI↔régimen check needs a valid régimen: not reported twice.
      expect(problems).toHaveLength(1);
    }
  });
  test('CFDI40157: in force on the CFDI date', () => {
    // CFDI 4.0 catalogs start on 2022-01-01: the postal code, the régimen and the use are all out of force before.
    const problems = check({}, MORAL, { fecha: '2021-12-31' });
    expect(problems.map((p) => [p.field, p.rule])).toEqual([
      ['receptor.domicilio_fiscal', 'CFDI40147'],
      ['receptor.regimen_fiscal', 'CFDI40157'],
      ['receptor.uso_cfdi', 'CFDI40160'],
    ]);
  });
  test('CFDI40158: matches the persona type', () => {
    expect(only(check({ regimen_fiscal: '612' }))).toMatchObject({ field: 'receptor.regimen_fiscal', rule: 'CFDI40158' });
    expect(only(check({ regimen_fiscal: '601', uso_cfdi: 'G03' }, FISICA))).toMatchObject({ field: 'receptor.regimen_fiscal', rule: 'CFDI40158' });
    expect(only(check({ regimen_fiscal: '616', uso_cfdi: 'S01' }))).toMatchObject({ rule: 'CFDI40158' });
  });
  test('CFDI40159: generic RFCs use 616', () => {
    expect(only(check({ regimen_fiscal: '612' }, PUBLICO))).toMatchObject({ field: 'receptor.regimen_fiscal', rule: 'CFDI40159' });
    expect(only(check({ regimen_fiscal: '601' }, EXTRANJERO))).toMatchObject({ field: 'receptor.regimen_fiscal', rule: 'CFDI40159' });
  });
});

describe('checkReceptor: UsoCFDI', () => {
  test('CFDI40160: in c_UsoCFDI', () => {
    for (const u of ['G99', 'P01', '', 'g03']) expect(only(check({ uso_cfdi: u }))).toMatchObject({ field: 'receptor.uso_cfdi', rule: 'CFDI40160' });
  });
  test('CFDI40161: allowed for the persona type', () => {
    const d01 = only(check({ uso_cfdi: 'D01' }));
    expect(d01).toMatchObject({ field: 'receptor.uso_cfdi', rule: 'CFDI40161' });
    expect(d01.issue).toContain('persona moral');
    expect(only(check({ uso_cfdi: 'CN01' }))).toMatchObject({ rule: 'CFDI40161' });
  });
  test('CFDI40161: allowed for the RegimenFiscalReceptor', () => {
    const g03 = only(check({ uso_cfdi: 'G03' }, PUBLICO));
    expect(g03).toMatchObject({ field: 'receptor.uso_cfdi', rule: 'CFDI40161' });
    expect(g03.issue).toContain('régimen fiscal 616');
    expect(only(check({ uso_cfdi: 'D01', regimen_fiscal: '621' }, FISICA))).toMatchObject({ rule: 'CFDI40161' });
    expect(only(check({ uso_cfdi: 'CN01' }, FISICA))).toMatchObject({ rule: 'CFDI40161' });
  });
  test('tipo P needs CP01; tipo N needs CN01 and 605', () => {
    expect(only(check({}, MORAL, { ...ctx, tipo: 'P' }))).toMatchObject({ field: 'receptor.uso_cfdi' });
    const nomina = check({}, FISICA, { ...ctx, tipo: 'N' });
    expect(nomina.map((p) => [p.field, p.rule])).toContainEqual(['receptor.uso_cfdi', 'NOM12']);
    expect(check({ uso_cfdi: 'CN01' }, FISICA, { ...ctx, tipo: 'N' }).map((p) => p.rule)).toContain('NOM11');
  });
});

describe('checkReceptor: reporting', () => {
  test('every problem at once, under the prefix given', () => {
    const problems = checkReceptor(
      {
        rfc: 'XAXX010101000',
        nombre: 'PUBLICO EN GENERAL',
        regimen_fiscal: '601',
        domicilio_fiscal: '01000',
        uso_cfdi: 'G03',
        residencia_fiscal: 'MEX',
        num_reg_id_trib: 'X',
      },
      ctx,
      'receptor_id',
    );
    // G03 against 616 (CFDI40161) is not judged while the régimen itself is wrong.
    expect(problems.map((p) => p.rule).sort()).toEqual(['CFDI40149', 'CFDI40151', 'CFDI40152', 'CFDI40154', 'CFDI40159']);
    for (const p of problems) expect(p.field).toStartWith('receptor_id.');
  });
  test('an empty prefix gives bare field names', () => {
    expect(checkReceptor({ ...MORAL, uso_cfdi: 'D01' }, ctx, '')[0]!.field).toBe('uso_cfdi');
  });
  test('odd strings never throw', () => {
    for (const s of ['\u0000', '\ud800', '(', '[', '.*', 'x'.repeat(5000), '🧾']) {
      const all: ReceptorInput = { rfc: s, nombre: s, regimen_fiscal: s, domicilio_fiscal: s, uso_cfdi: s, residencia_fiscal: s, num_reg_id_trib: s };
      expect(checkReceptor(all, ctx).length).toBeGreaterThan(0);
    }
  });
});
