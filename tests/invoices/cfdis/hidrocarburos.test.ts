import { beforeAll, describe, expect, test } from 'bun:test';
import { child, childrenNamed } from '../../../src/cfdi/xml.ts';
import { cfdis } from '../../../src/db/schema/index.ts';
import { CfdiExamples } from '../../../src/invoices/cfdis/examples.ts';
import { readPdf } from '../../cfdi/pdf/carta-porte.ts';
import { createTestApp, issuer, READY } from '../../helpers.ts';
import { expectValidStamped, recomputedTotal } from './stamped.ts';

/**
 * Hidrocarburos y Petrolíferos 1.0 through the API (issue 38, build item 3): the example stamps, its XML passes SAT's
 * XSD with hidrocarburospetroliferos.xsd, its cadena is SAT's XSLT output (the complement inside its concepto), both
 * seals verify; invalid requests are 400s naming the field, nothing stored, /cfdis/validate agreeing.
 */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
});

type Body = any;
const diesel = (): Body => structuredClone(CfdiExamples.ingreso_hidrocarburos.value);
const LAVADO = { clave_prod_serv: '78181500', clave_unidad: 'E48', descripcion: 'Lavado de parabrisas', cantidad: '1', valor_unitario: '50', objeto_imp: '02' };
const IVA_16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
/** The example with its first concepto changed by `edit`. */
const edited = (edit: (c: Body) => void) => (): Body => {
  const body = diesel();
  edit(body.conceptos[0]);
  return body;
};
const permit = (over: Record<string, unknown>) => edited((c) => Object.assign(c.hidrocarburos_petroliferos, over));

async function stamp(body: Body) {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  expect([res.status, res.json.status]).toEqual([201, 'vigente']);
  const xml = await (await t.app.request(`/api/v1/cfdis/${res.json.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
  return { res, xml, root: await expectValidStamped(t, xml) };
}

const hidroOf = (concepto: Body) =>
  childrenNamed(child(concepto, 'cfdi:ComplementoConcepto') ?? { name: '', attrs: {}, children: [] }, 'hidrocarburospetroliferos:HidroYPetro');

describe('Hidrocarburos y Petrolíferos 1.0 stamps', () => {
  test('the example (diesel with its permit): valid, sealed, the complement in its concepto, the namespace on the root', async () => {
    const { res, root } = await stamp(diesel());
    const [concepto] = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
    expect(hidroOf(concepto).map((n) => n.attrs)).toEqual([
      { Version: '1.0', TipoPermiso: 'PER07', NumeroPermiso: 'PL/23456/EXP/ES/2024', ClaveHYP: '15101505', SubProductoHYP: 'SP18' },
    ]);
    expect(root.attrs['xmlns:hidrocarburospetroliferos']).toBe('http://www.sat.gob.mx/hidrocarburospetroliferos');
    expect(root.attrs['xsi:schemaLocation']).toContain(
      'http://www.sat.gob.mx/hidrocarburospetroliferos http://www.sat.gob.mx/sitio_internet/cfd/hidrocarburospetroliferos.xsd',
    );
    // 113.000 × 28.41 = 3,210.33; IVA 513.65.
    expect([root.attrs.SubTotal, root.attrs.Total, recomputedTotal(root)]).toEqual(['3210.33', '3723.98', '3723.98']);
    const pdf = await t.app.request(`/api/v1/cfdis/${res.json.uuid}/pdf`, { headers: { authorization: `Bearer ${key}` } });
    expect(pdf.status).toBe(200);
    const text = (await readPdf(new Uint8Array(await pdf.arrayBuffer()))).flat().map((i) => i.str);
    expect(text).toContain('Permiso PER07 PL/23456/EXP/ES/2024');
    // GET shows it under its concepto.
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
    expect(got.json.conceptos.map((c: Body) => c.hidrocarburos_petroliferos)).toEqual([
      { tipo_permiso: 'PER07', numero_permiso: 'PL/23456/EXP/ES/2024', clave_hyp: '15101505', sub_producto_hyp: 'SP18' },
    ]);
  });

  test('three conceptos: both gasolines around a service that carries none', async () => {
    const body = diesel();
    const gasolina = (clave: string, descripcion: string, sub: string) => ({
      clave_prod_serv: clave,
      clave_unidad: 'LTR',
      descripcion,
      cantidad: '40.5',
      valor_unitario: '23.99',
      objeto_imp: '02',
      impuestos: IVA_16,
      hidrocarburos_petroliferos: { tipo_permiso: 'PER11', numero_permiso: ' PL/12345/EXP/ES/2026 ', sub_producto_hyp: sub },
    });
    body.conceptos = [gasolina('15101514', 'Gasolina regular', 'SP16'), { ...LAVADO, impuestos: IVA_16 }, gasolina('15101515', 'Gasolina premium', 'SP17')];
    const { res, root } = await stamp(body);
    const conceptos = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
    expect(conceptos.map((c) => hidroOf(c).map((n) => `${n.attrs.ClaveHYP} ${n.attrs.NumeroPermiso}`))).toEqual([
      ['15101514 PL/12345/EXP/ES/2026'],
      [],
      ['15101515 PL/12345/EXP/ES/2026'],
    ]);
    expect(root.attrs.Total).toBe(recomputedTotal(root));
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
    expect(got.json.conceptos.map((c: Body) => c.hidrocarburos_petroliferos?.clave_hyp)).toEqual(['15101514', undefined, '15101515']);
  });

  test('a Traslado moving its own diesel need not carry it', async () => {
    const res = await t.call('POST', '/cfdis/validate', {
      token: key,
      body: {
        tipo: 'T',
        receptor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
        conceptos: [{ clave_prod_serv: '15101505', clave_unidad: 'LTR', descripcion: 'Diésel', cantidad: '1000', valor_unitario: '0', objeto_imp: '01' }],
      },
    });
    expect(res.json).toEqual({ valid: true, errors: [], warnings: [] });
  });
});

/** [name, request, field]: SAT publishes no error matrix for this complement, so no case has a rule code. */
const F = 'conceptos[0].hidrocarburos_petroliferos';
const CASES: [string, () => Body, string][] = [
  ['diesel without it', edited((c) => delete c.hidrocarburos_petroliferos), F],
  ['regular gasoline without it', edited((c) => Object.assign(c, { clave_prod_serv: '15101514', hidrocarburos_petroliferos: undefined })), F],
  [
    'on the second concepto, premium gasoline without it',
    () => ({ ...diesel(), conceptos: [{ ...LAVADO }, { ...diesel().conceptos[0], clave_prod_serv: '15101515', hidrocarburos_petroliferos: undefined }] }),
    'conceptos[1].hidrocarburos_petroliferos',
  ],
  ['on a service', edited((c) => Object.assign(c, { ...LAVADO, impuestos: IVA_16 })), F],
  ['on off-road diesel (15101513, not in c_ClaveHYP)', edited((c) => (c.clave_prod_serv = '15101513')), F],
  ['a permit type outside c_TipoPermiso', permit({ tipo_permiso: 'PER12' }), `${F}.tipo_permiso`],
  ['a permit type in lower case', permit({ tipo_permiso: 'per07' }), `${F}.tipo_permiso`],
  ['a permit number of 14 characters', permit({ numero_permiso: 'PL/2345/EXP/ES' }), `${F}.numero_permiso`],
  ['a permit number of 36 characters', permit({ numero_permiso: 'PL/23456/EXP/ES/2024/0000000000000000' }), `${F}.numero_permiso`],
  ['a clave_hyp other than the concepto’s', permit({ clave_hyp: '15101514' }), `${F}.clave_hyp`],
  ['a clave_hyp outside c_ClaveHYP', permit({ clave_hyp: '15101506' }), `${F}.clave_hyp`],
  ['a subproduct outside c_SubProductoHYP', permit({ sub_producto_hyp: 'SP99' }), `${F}.sub_producto_hyp`],
  ['no subproduct', edited((c) => delete c.hidrocarburos_petroliferos.sub_producto_hyp), `${F}.sub_producto_hyp`],
  ['a member it does not have', permit({ version: '1.0' }), `${F}.version`],
];

describe('invalid Hidrocarburos y Petrolíferos requests → 400 naming the field', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(10);

  test.each(CASES)('%s', async (_name, build, field) => {
    const body = build();
    const before = await t.count(cfdis);
    const res = await t.call('POST', '/cfdis', { token: key, body });
    expect(res.status).toBe(400);
    const details = res.json.error.details as { field: string; issue: string; rule?: string }[];
    expect(details.map((d) => d.field)).toContain(field);
    expect(details.find((d) => d.field === field)!.issue.length).toBeGreaterThan(10);
    expect(await t.count(cfdis)).toEqual(before);
    const check = await t.call('POST', '/cfdis/validate', { token: key, body });
    if (check.status === 200) {
      expect(check.json.valid).toBe(false);
      expect(check.json.errors).toContainEqual(details.find((d) => d.field === field));
    } else {
      expect(check.status).toBe(400);
      expect(check.json.error.details).toEqual(details);
    }
  });
});
