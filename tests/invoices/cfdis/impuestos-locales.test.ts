import { beforeAll, describe, expect, test } from 'bun:test';
import { child, childrenNamed } from '../../../src/cfdi/xml.ts';
import { cfdis } from '../../../src/db/schema/index.ts';
import { CfdiExamples } from '../../../src/invoices/cfdis/examples.ts';
import { readPdf } from '../../cfdi/pdf/carta-porte.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';
import { expectValidStamped, recomputedTotal } from './stamped.ts';

/**
 * Impuestos Locales 1.0 through the API (issue 38, build item 3): the example stamps, its XML passes SAT's XSD with
 * implocal.xsd, its cadena is SAT's XSLT output, both seals verify, and the Total includes the local taxes (recomputed
 * here from the XML); invalid requests are 400s naming the field, nothing stored, /cfdis/validate agreeing.
 */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
});

type Body = any;
const hotel = (): Body => structuredClone(CfdiExamples.ingreso_impuestos_locales.value);
/** Professional fees of 10,000.00 with a 500.00 discount: IVA 16 %, ISR 10 % and two thirds of the IVA withheld. */
const honorarios = (impuestosLocales: Body): Body => ({
  tipo: 'I',
  forma_pago: '03',
  metodo_pago: 'PUE',
  receptor: ICV,
  conceptos: [
    {
      clave_prod_serv: '80111600',
      clave_unidad: 'E48',
      descripcion: 'Honorarios por asesoría, noviembre',
      cantidad: '1',
      valor_unitario: '10000.00',
      descuento: '500.00',
      objeto_imp: '02',
      impuestos: {
        traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
        retenciones: [
          { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' },
          { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' },
        ],
      },
    },
  ],
  impuestos_locales: impuestosLocales,
});

async function stamp(body: Body) {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  expect([res.status, res.json.status]).toEqual([201, 'vigente']);
  const xml = await (await t.app.request(`/api/v1/cfdis/${res.json.uuid}/xml`, { headers: { authorization: `Bearer ${key}` } })).text();
  return { res, xml, root: await expectValidStamped(t, xml) };
}

describe('Impuestos Locales 1.0 stamps', () => {
  test('the example (a hotel night with ISH 3 %): valid, sealed, Total 1,785.00 = 1,500.00 + IVA 240.00 + ISH 45.00', async () => {
    const { res, root } = await stamp(hotel());
    const local = child(child(root, 'cfdi:Complemento')!, 'implocal:ImpuestosLocales')!;
    expect(local.attrs).toEqual({ version: '1.0', TotaldeRetenciones: '0.00', TotaldeTraslados: '45.00' });
    expect(childrenNamed(local, 'implocal:TrasladosLocales').map((n) => n.attrs)).toEqual([{ ImpLocTrasladado: 'ISH', TasadeTraslado: '3', Importe: '45.00' }]);
    expect(root.attrs['xmlns:implocal']).toBe('http://www.sat.gob.mx/implocal');
    expect(root.attrs['xsi:schemaLocation']).toContain('http://www.sat.gob.mx/implocal http://www.sat.gob.mx/sitio_internet/cfd/implocal/implocal.xsd');
    expect([root.attrs.SubTotal, root.attrs.Total, recomputedTotal(root)]).toEqual(['1500.00', '1785.00', '1785.00']);
    expect(res.json.total).toBe(1785);
    // GET shows the complement; the PDF lists the tax and its totals block adds up to the Total.
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: key });
    expect(got.json.impuestos_locales).toEqual({
      total_de_traslados: 45,
      total_de_retenciones: 0,
      traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: 3, importe: 45 }],
      retenciones: [],
    });
    const pdf = await t.app.request(`/api/v1/cfdis/${res.json.uuid}/pdf`, { headers: { authorization: `Bearer ${key}` } });
    expect(pdf.status).toBe(200);
    const text = (await readPdf(new Uint8Array(await pdf.arrayBuffer()))).flat().map((i) => i.str);
    expect(text).toContain('IMPUESTOS LOCALES');
    expect(text).toContain('ISH 3 % (local)');
    expect(text.filter((s) => s.includes('45.00')).length).toBeGreaterThanOrEqual(2);
    expect(text.some((s) => s.includes('1,785.00'))).toBe(true);
  });

  test('fees with a discount, federal withholdings and both kinds of local tax: every amount exact', async () => {
    const { res, root } = await stamp(
      honorarios({
        retenciones: [{ imp_loc_retenido: 'Impuesto cedular', tasa_de_retencion: '2' }],
        traslados: [{ imp_loc_trasladado: 'Derecho de supervisión', tasa_de_traslado: '0.5', base: '3333.33' }],
      }),
    );
    // 9,500.00 + IVA 1,520.00 − ISR 950.00 − IVA 1,013.34 + 16.67 (0.5 % of 3,333.33) − 190.00 (2 % of 9,500.00).
    const local = child(child(root, 'cfdi:Complemento')!, 'implocal:ImpuestosLocales')!;
    expect(local.attrs).toEqual({ version: '1.0', TotaldeRetenciones: '190.00', TotaldeTraslados: '16.67' });
    expect([root.attrs.SubTotal, root.attrs.Descuento, root.attrs.Total]).toEqual(['10000.00', '500.00', recomputedTotal(root)]);
    expect(root.attrs.Total).toBe('8883.33');
    expect(res.json.total).toBe(8883.33);
  });
});

/** [name, request, field]: SAT publishes no error matrix for implocal, so no case has a rule code. */
const CASES: [string, () => Body, string][] = [
  ['on a Traslado', () => ({ ...hotel(), tipo: 'T', forma_pago: undefined, metodo_pago: undefined }), 'impuestos_locales'],
  ['with no line', () => ({ ...hotel(), impuestos_locales: {} }), 'impuestos_locales'],
  ['with empty lists', () => ({ ...hotel(), impuestos_locales: { traslados: [], retenciones: [] } }), 'impuestos_locales'],
  [
    'a traslado without its name',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: ' ', tasa_de_traslado: '3' }] } }),
    'impuestos_locales.traslados[0].imp_loc_trasladado',
  ],
  [
    'a rate of 0',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '0' }] } }),
    'impuestos_locales.traslados[0].tasa_de_traslado',
  ],
  [
    'a rate over 100',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '300' }] } }),
    'impuestos_locales.traslados[0].tasa_de_traslado',
  ],
  [
    'a rate with three decimals',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3.125' }] } }),
    'impuestos_locales.traslados[0].tasa_de_traslado',
  ],
  [
    'a rate that is not a number',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: 'tres' }] } }),
    'impuestos_locales.traslados[0].tasa_de_traslado',
  ],
  [
    'a base above SubTotal − Descuento',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', base: '1500.01' }] } }),
    'impuestos_locales.traslados[0].base',
  ],
  [
    'a base of 0',
    () => ({ ...hotel(), impuestos_locales: { retenciones: [{ imp_loc_retenido: 'Cedular', tasa_de_retencion: '2', base: '0' }] } }),
    'impuestos_locales.retenciones[0].base',
  ],
  [
    'an importe off base × tasa',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '46.00' }] } }),
    'impuestos_locales.traslados[0].importe',
  ],
  [
    'an importe with three decimals',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '45.001' }] } }),
    'impuestos_locales.traslados[0].importe',
  ],
  [
    'the same tax at the same rate twice',
    () => ({
      ...hotel(),
      impuestos_locales: {
        traslados: [
          { imp_loc_trasladado: 'ISH', tasa_de_traslado: '3' },
          { imp_loc_trasladado: 'ish', tasa_de_traslado: '3.00' },
        ],
      },
    }),
    'impuestos_locales.traslados[1].imp_loc_trasladado',
  ],
  [
    'withholdings above the Total',
    () => honorarios({ retenciones: [{ imp_loc_retenido: 'Cedular', tasa_de_retencion: '100' }] }),
    'impuestos_locales.retenciones',
  ],
  [
    'a member the complement does not have',
    () => ({ ...hotel(), impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', tasa_o_cuota: '0.03' }] } }),
    'impuestos_locales.traslados[0].tasa_o_cuota',
  ],
];

describe('invalid Impuestos Locales requests → 400 naming the field', () => {
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
