import { describe, expect, test } from 'bun:test';
import type { ImpuestosLocalesInput } from '../../../src/cfdi/complements/implocal10/input.ts';
import type { ImpuestosLocalesContext } from '../../../src/cfdi/complements/implocal10/model.ts';
import { totalAdjustment } from '../../../src/cfdi/complements/implocal10/rules.ts';
import { Dec } from '../../../src/cfdi/decimal.ts';
import { CEDULAR, HONORARIOS, HOTEL, ISH, run } from './fixtures.ts';

const text = (d: Dec) => d.toString();

describe('prepareImpuestosLocales: valid', () => {
  test('a hotel night with ISH 3 % trasladado: 45.00 on 1,500.00, Total 1,785.00', () => {
    const { model, problems } = run(ISH);
    expect(problems).toEqual([]);
    expect(model.traslados.map((t) => [t.impLocTrasladado, text(t.tasadeTraslado), text(t.importe)])).toEqual([['ISH', '3', '45.00']]);
    expect(model.retenciones).toEqual([]);
    expect([text(model.totaldeTraslados), text(model.totaldeRetenciones)]).toEqual(['45.00', '0.00']);
    expect(text(HOTEL.total!.add(totalAdjustment(model)))).toBe('1785.00');
  });

  test('a state cedular retention of 2 % on fees: 200.00 withheld, Total 9,333.33', () => {
    const { model, problems } = run(CEDULAR, HONORARIOS);
    expect(problems).toEqual([]);
    expect(model.retenciones.map((r) => [r.impLocRetenido, text(r.tasadeRetencion), text(r.importe)])).toEqual([['Impuesto cedular', '2', '200.00']]);
    expect([text(model.totaldeRetenciones), text(model.totaldeTraslados)]).toEqual(['200.00', '0.00']);
    expect(text(totalAdjustment(model))).toBe('-200.00');
    expect(text(HONORARIOS.total!.add(totalAdjustment(model)))).toBe('9333.33');
  });

  test('the base defaults to SubTotal − Descuento; a line may send its own; amounts round half up at the cent', () => {
    const ctx: ImpuestosLocalesContext = { tipo: 'E', subTotal: Dec.parse('1100.50'), descuento: Dec.parse('100.00'), total: Dec.parse('1160.58') };
    const { model, problems } = run(
      {
        traslados: [
          { imp_loc_trasladado: 'ISH', tasa_de_traslado: '3.00' }, // 1,000.50 × 3 % = 30.015 → 30.02
          { imp_loc_trasladado: 'Derecho de saneamiento', tasa_de_traslado: '2.5', base: '900.10' }, // 22.5025 → 22.50
        ],
        retenciones: [{ imp_loc_retenido: 'Cedular', tasa_de_retencion: '1.25', base: '333.33', importe: '4.17' }], // 4.166625, sent 4.17
      },
      ctx,
    );
    expect(problems).toEqual([]);
    expect(model.traslados.map((t) => text(t.importe))).toEqual(['30.02', '22.50']);
    expect(model.retenciones.map((r) => text(r.importe))).toEqual(['4.17']);
    expect([text(model.totaldeTraslados), text(model.totaldeRetenciones), text(totalAdjustment(model))]).toEqual(['52.52', '4.17', '48.35']);
  });

  test('a sent importe inside the window is kept as sent (SAT’s federal tolerance: base ± half a cent)', () => {
    // 1,500.00 × 3 % = 45.00 exactly: the window is [44.99, 45.01] at two decimals.
    expect(run({ traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '45.01' }] }).model.traslados[0]!.importe.toString()).toBe('45.01');
    expect(run({ traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '45' }] }).model.traslados[0]!.importe.toString()).toBe('45.00');
  });
});

/** One invalid request: what it breaks, the field reported and a part of the issue (no SAT code exists for implocal). */
const INVALID: [string, ImpuestosLocalesInput, ImpuestosLocalesContext, string, string][] = [
  ['on a Traslado', ISH, { ...HOTEL, tipo: 'T' }, 'impuestos_locales', 'tipo I and E only, not T'],
  ['on a Pago', ISH, { ...HOTEL, tipo: 'P' }, 'impuestos_locales', 'tipo I and E only, not P'],
  ['with no line', { retenciones: [], traslados: [] }, HOTEL, 'impuestos_locales', 'at least one of retenciones or traslados'],
  [
    'a retención without name',
    { retenciones: [{ imp_loc_retenido: '  ', tasa_de_retencion: '2' }] },
    HONORARIOS,
    'impuestos_locales.retenciones[0].imp_loc_retenido',
    'must name the local tax',
  ],
  [
    'a traslado without name',
    { traslados: [{ imp_loc_trasladado: '', tasa_de_traslado: '3' }] },
    HOTEL,
    'impuestos_locales.traslados[0].imp_loc_trasladado',
    'must name the local tax',
  ],
  [
    'a rate of 0',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '0' }] },
    HOTEL,
    'impuestos_locales.traslados[0].tasa_de_traslado',
    'greater than 0',
  ],
  [
    'a negative rate',
    { retenciones: [{ imp_loc_retenido: 'Cedular', tasa_de_retencion: '-2' }] },
    HONORARIOS,
    'impuestos_locales.retenciones[0].tasa_de_retencion',
    'greater than 0',
  ],
  [
    'a rate over 100 %',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '300' }] },
    HOTEL,
    'impuestos_locales.traslados[0].tasa_de_traslado',
    'at most 100',
  ],
  [
    'a rate as a fraction with three decimals',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '0.035' }] },
    HOTEL,
    'impuestos_locales.traslados[0].tasa_de_traslado',
    'at most two decimals',
  ],
  [
    'a rate that is not a number',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3%' }] },
    HOTEL,
    'impuestos_locales.traslados[0].tasa_de_traslado',
    'must be a decimal number',
  ],
  [
    'an importe with three decimals',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '45.001' }] },
    HOTEL,
    'impuestos_locales.traslados[0].importe',
    'at most two decimals',
  ],
  [
    'an importe that is not base × tasa',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '45.02' }] },
    HOTEL,
    'impuestos_locales.traslados[0].importe',
    'between 44.99 and 45.01',
  ],
  [
    'a negative importe',
    { retenciones: [{ imp_loc_retenido: 'Cedular', tasa_de_retencion: '2', importe: '-200' }] },
    HONORARIOS,
    'impuestos_locales.retenciones[0].importe',
    'must not be negative',
  ],
  [
    'a base of 0',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', base: '0' }] },
    HOTEL,
    'impuestos_locales.traslados[0].base',
    'greater than 0',
  ],
  [
    'a base over SubTotal − Descuento',
    { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', base: '1500.01' }] },
    HOTEL,
    'impuestos_locales.traslados[0].base',
    'must not exceed',
  ],
  [
    'the same tax twice',
    {
      traslados: [
        { imp_loc_trasladado: 'ISH', tasa_de_traslado: '3' },
        { imp_loc_trasladado: 'ish', tasa_de_traslado: '3.00' },
      ],
    },
    HOTEL,
    'impuestos_locales.traslados[1].imp_loc_trasladado',
    'listed twice',
  ],
  [
    'retentions above the Total',
    { retenciones: [{ imp_loc_retenido: 'Cedular', tasa_de_retencion: '100' }] },
    HONORARIOS,
    'impuestos_locales.retenciones',
    'the Total would be -466.67',
  ],
];

describe('prepareImpuestosLocales: each broken rule is reported on its field', () => {
  test.each(INVALID)('%s', (_what, req, ctx, field, issue) => {
    const { problems } = run(req, ctx);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.field).toBe(field);
    expect(problems[0]!.issue).toContain(issue);
    // SAT publishes no error matrix for implocal: no invented code.
    expect(problems[0]!.rule).toBeUndefined();
  });

  test('every problem at once', () => {
    const { problems } = run(
      { retenciones: [{ imp_loc_retenido: '', tasa_de_retencion: '0' }], traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3', importe: '1' }] },
      { ...HOTEL, tipo: 'T' },
    );
    expect(problems.map((p) => p.field)).toEqual([
      'impuestos_locales',
      'impuestos_locales.retenciones[0].imp_loc_retenido',
      'impuestos_locales.retenciones[0].tasa_de_retencion',
      'impuestos_locales.traslados[0].importe',
    ]);
  });
});
