import { describe, expect, test } from 'bun:test';
import type { ConceptoHidrocarburosInput } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/input.ts';
import { DIESEL, diesel, run } from './fixtures.ts';

describe('prepareHidrocarburosPetroliferos: valid', () => {
  test('diesel with its permit', () => {
    const { models, problems } = run([diesel()]);
    expect(problems).toEqual([]);
    expect(models).toEqual([{ tipoPermiso: 'PER07', numeroPermiso: 'PL/23456/EXP/ES/2024', claveHYP: '15101505', subProductoHYP: 'SP18' }]);
  });

  test('premium gasoline without clave_hyp takes the concepto’s key; values are whitespace-collapsed as the XSD reads them', () => {
    const { models, problems } = run([
      {
        clave_prod_serv: '15101515',
        hidrocarburos_petroliferos: { tipo_permiso: ' PER11 ', numero_permiso: ' PL/12345/EXP/ES/2026  ', sub_producto_hyp: 'SP16' },
      },
    ]);
    expect(problems).toEqual([]);
    expect(models).toEqual([{ tipoPermiso: 'PER11', numeroPermiso: 'PL/12345/EXP/ES/2026', claveHYP: '15101515', subProductoHYP: 'SP16' }]);
  });

  test('a concepto that is not fuel carries nothing; each fuel concepto its own', () => {
    const { models, problems } = run([
      { clave_prod_serv: '78181500' },
      diesel(),
      { clave_prod_serv: '15101514', hidrocarburos_petroliferos: { ...DIESEL, clave_hyp: '15101514', sub_producto_hyp: 'SP17' } },
    ]);
    expect(problems).toEqual([]);
    expect(models.map((m) => m?.claveHYP)).toEqual([undefined, '15101505', '15101514']);
  });
});

/** One invalid concepto: what it breaks, the field reported and a part of the issue (SAT publishes no code for this complement). */
const INVALID: [string, ConceptoHidrocarburosInput, string, string][] = [
  [
    'diesel without it',
    { clave_prod_serv: '15101505' },
    'conceptos[0].hidrocarburos_petroliferos',
    'required on clave_prod_serv 15101505 (Combustible diesel)',
  ],
  ['regular gasoline without it', { clave_prod_serv: '15101514' }, 'conceptos[0].hidrocarburos_petroliferos', 'required on clave_prod_serv 15101514'],
  ['premium gasoline without it', { clave_prod_serv: '15101515' }, 'conceptos[0].hidrocarburos_petroliferos', 'required on clave_prod_serv 15101515'],
  [
    'off-road diesel (not in c_ClaveHYP)',
    { ...diesel(), clave_prod_serv: '15101513' },
    'conceptos[0].hidrocarburos_petroliferos',
    'not on clave_prod_serv 15101513',
  ],
  [
    'gasoline’s old key 15101506',
    { ...diesel({ clave_hyp: undefined }), clave_prod_serv: '15101506' },
    'conceptos[0].hidrocarburos_petroliferos',
    'only on the fuel keys',
  ],
  ['a service', { ...diesel(), clave_prod_serv: '78181500' }, 'conceptos[0].hidrocarburos_petroliferos', 'not on clave_prod_serv 78181500'],
  [
    'a permit type out of the catalog',
    diesel({ tipo_permiso: 'PER12' }),
    'conceptos[0].hidrocarburos_petroliferos.tipo_permiso',
    '"PER12" is not a c_TipoPermiso key',
  ],
  ['a permit type in lower case', diesel({ tipo_permiso: 'per07' }), 'conceptos[0].hidrocarburos_petroliferos.tipo_permiso', 'not a c_TipoPermiso key'],
  ['an empty permit type', diesel({ tipo_permiso: '' }), 'conceptos[0].hidrocarburos_petroliferos.tipo_permiso', 'not a c_TipoPermiso key'],
  ['a permit number of 14 characters', diesel({ numero_permiso: 'PL/2345/EXP/ES' }), 'conceptos[0].hidrocarburos_petroliferos.numero_permiso', 'not 14'],
  [
    'a permit number of 36 characters',
    diesel({ numero_permiso: `PL/23456/EXP/ES/2024/${'X'.repeat(15)}` }),
    'conceptos[0].hidrocarburos_petroliferos.numero_permiso',
    'not 36',
  ],
  [
    'a permit number short once its blanks collapse',
    diesel({ numero_permiso: 'PL/1   /EXP/ES   ' }),
    'conceptos[0].hidrocarburos_petroliferos.numero_permiso',
    'not 12: "PL/1 /EXP/ES"',
  ],
  [
    'a clave_hyp out of c_ClaveHYP',
    diesel({ clave_hyp: '15101513' }),
    'conceptos[0].hidrocarburos_petroliferos.clave_hyp',
    '"15101513" is not a c_ClaveHYP key',
  ],
  [
    'a clave_hyp of another fuel',
    diesel({ clave_hyp: '15101514' }),
    'conceptos[0].hidrocarburos_petroliferos.clave_hyp',
    "must be the concepto's clave_prod_serv 15101505",
  ],
  [
    'a subproduct out of the catalog',
    diesel({ sub_producto_hyp: 'SP20' }),
    'conceptos[0].hidrocarburos_petroliferos.sub_producto_hyp',
    '"SP20" is not a c_SubProductoHYP key',
  ],
  ['an empty subproduct', diesel({ sub_producto_hyp: ' ' }), 'conceptos[0].hidrocarburos_petroliferos.sub_producto_hyp', 'not a c_SubProductoHYP key'],
];

describe('prepareHidrocarburosPetroliferos: each broken rule is reported on its field', () => {
  test.each(INVALID)('%s', (_what, concepto, field, issue) => {
    const { problems } = run([concepto]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.field).toBe(field);
    expect(problems[0]!.issue).toContain(issue);
    expect(problems[0]!.rule).toBeUndefined();
  });

  test('every problem at once, on the concepto it belongs to', () => {
    const { problems } = run([
      { clave_prod_serv: '78181500' },
      { clave_prod_serv: '15101514' },
      { clave_prod_serv: '15101505', hidrocarburos_petroliferos: { tipo_permiso: 'PER00', numero_permiso: 'corto', clave_hyp: '1', sub_producto_hyp: 'SP1' } },
    ]);
    expect(problems.map((p) => p.field)).toEqual([
      'conceptos[1].hidrocarburos_petroliferos',
      'conceptos[2].hidrocarburos_petroliferos.tipo_permiso',
      'conceptos[2].hidrocarburos_petroliferos.numero_permiso',
      'conceptos[2].hidrocarburos_petroliferos.clave_hyp',
      'conceptos[2].hidrocarburos_petroliferos.sub_producto_hyp',
    ]);
  });
});
