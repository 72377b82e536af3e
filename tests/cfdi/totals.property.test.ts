import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { comprobanteNode } from '../../src/cfdi/build.ts';
import { prepareInvoice } from '../../src/cfdi/prepare.ts';
import { serializeXml } from '../../src/cfdi/xml.ts';
import type { CfdiRequest } from '../../src/invoices/cfdis/schemas.ts';

/**
 * Acceptance 4: thousands of random invoices; totals checked with an independent exact computation (plain bigint
 * at 12 decimals, not the engine's Dec) against SAT's formulas and tolerances; no float artefacts anywhere.
 */
const SCALE = 12;
const toUnits = (s: string): bigint => {
  const [i, f = ''] = s.split('.');
  return BigInt(i + f.padEnd(SCALE, '0').slice(0, SCALE));
};
const pow = (n: number) => 10n ** BigInt(n);
const decimalsOf = (s: string) => (s.split('.')[1] ?? '').length;
/** Round half away from zero to `d` decimals, on a value at SCALE. */
const roundTo = (u: bigint, d: number) => {
  const f = pow(SCALE - d);
  return ((u * 2n + f) / (2n * f)) * f;
};
const truncTo = (u: bigint, d: number) => (u / pow(SCALE - d)) * pow(SCALE - d);
const ceilTo = (u: bigint, d: number) => {
  const f = pow(SCALE - d);
  return ((u + f - 1n) / f) * f;
};
const mul = (a: bigint, b: bigint) => (a * b) / pow(SCALE); // inputs have ≤ 6 decimals: exact at 12

const TASAS = [
  { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
  { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' },
  { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.000000' },
  { impuesto: '002', tipo_factor: 'Exento' },
  { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.265000' },
];
const RETENCIONES = [
  { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' },
  { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' },
];

const decimal = (maxInt: number, maxDec: number, min = 0) =>
  fc.tuple(fc.integer({ min, max: maxInt }), fc.integer({ min: 0, max: maxDec }), fc.integer({ min: 0, max: 999_999 })).map(([i, d, f]) => {
    const frac = String(f).padStart(6, '0').slice(0, d);
    const s = d ? `${i}.${frac}` : String(i);
    return toUnits(s) === 0n ? '1' : s;
  });

const conceptoArb = fc.record({
  cantidad: decimal(1000, 6),
  valor_unitario: decimal(100_000, 6),
  descuentoPct: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
  traslados: fc.subarray(
    TASAS.filter((t) => t.impuesto === '002'),
    { maxLength: 1 },
  ),
  ieps: fc.boolean(),
  retenciones: fc.subarray(RETENCIONES),
  asNumber: fc.boolean(),
});

const moneda = fc.constantFrom(['MXN', 2], ['USD', 2], ['JPY', 0], ['BHD', 3] as const);

const NOW = new Date('2026-11-21T18:00:00Z');
const ctx = {
  emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimenFiscal: '601', codigoPostal: '42501' },
  receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
  now: NOW,
  serie: 'A',
  folio: '1',
};

describe('totals (property)', () => {
  test('random invoices: SAT formulas and tolerances hold, amounts are exact', () => {
    fc.assert(
      fc.property(fc.array(conceptoArb, { minLength: 1, maxLength: 12 }), moneda, (conceptos, [code, decimals]) => {
        const request = {
          tipo: 'I',
          forma_pago: '03',
          moneda: code,
          tipo_cambio: code === 'MXN' ? undefined : '17.5',
          receptor: ctx.receptor,
          conceptos: conceptos.map((c) => {
            const importe = mul(toUnits(c.cantidad), toUnits(c.valor_unitario));
            const descuento = c.descuentoPct ? roundTo((importe * BigInt(c.descuentoPct)) / 100n, 2) : undefined;
            const traslados = [...(c.ieps ? [TASAS[4]!] : []), ...c.traslados];
            const hasTaxes = traslados.length + c.retenciones.length > 0;
            return {
              clave_prod_serv: '84111506',
              clave_unidad: 'E48',
              descripcion: 'x',
              cantidad: c.asNumber ? Number(c.cantidad) : c.cantidad,
              valor_unitario: c.asNumber ? Number(c.valor_unitario) : c.valor_unitario,
              descuento: descuento && descuento < importe ? fmt(descuento, 2) : undefined,
              impuestos: hasTaxes ? { traslados, retenciones: c.retenciones } : undefined,
              objeto_imp: hasTaxes ? undefined : '01',
            };
          }),
        } as unknown as CfdiRequest;
        // The zod schema normally turns numbers into strings; do the same here.
        for (const c of request.conceptos as any[]) {
          c.cantidad = String(c.cantidad);
          c.valor_unitario = String(c.valor_unitario);
        }
        const { model, errors } = prepareInvoice(request, ctx);
        if (!model) {
          // Only a negative total may be refused (retenciones above the amount).
          expect(errors.map((e) => e.rule)).toEqual(['CFDI40119']);
          return;
        }
        const xml = serializeXml(comprobanteNode(model, { noCertificado: '30001000000500003416', certificadoBase64: 'AA==' }));
        expect(xml).not.toMatch(/="-?\d*(\.\d*(0000000|9999999)\d|e[+-]?\d)[^"]*"|NaN|Infinity/);

        let subtotal = 0n;
        let descuentoTotal = 0n;
        const trasladoGroups = new Map<string, { base: bigint; importe: bigint }>();
        const retencionGroups = new Map<string, bigint>();
        model.conceptos.forEach((c, i) => {
          const cant = c.cantidad.toString();
          const vu = c.valorUnitario.toString();
          const imp = c.importe.toString();
          expect(decimalsOf(imp)).toBeLessThanOrEqual(6);
          // CFDI40167: LI ≤ Importe ≤ LS at the importe's decimals.
          const dC = decimalsOf(cant);
          const dV = decimalsOf(vu);
          const halfC = pow(SCALE - dC) / 2n;
          const halfV = pow(SCALE - dV) / 2n;
          const li = truncTo(mul(toUnits(cant) - halfC, toUnits(vu) - halfV), decimalsOf(imp));
          const ls = ceilTo(mul(toUnits(cant) + halfC - 1n, toUnits(vu) + halfV - 1n), decimalsOf(imp));
          expect(toUnits(imp) >= li && toUnits(imp) <= ls).toBe(true);
          expect(toUnits(imp)).toBe(
            roundTo(mul(toUnits(String(request.conceptos![i]!.cantidad)), toUnits(String(request.conceptos![i]!.valor_unitario))), decimalsOf(imp)),
          );
          subtotal += toUnits(imp);
          if (c.descuento) descuentoTotal += toUnits(c.descuento.toString());
          for (const t of c.traslados) {
            const key = `${t.impuesto}|${t.tipoFactor}|${t.tasaOCuota ?? ''}`;
            const g = trasladoGroups.get(key) ?? { base: 0n, importe: 0n };
            g.base += toUnits(t.base.toString());
            if (t.importe) {
              checkTaxWindow(t.base.toString(), t.tasaOCuota!, t.importe.toString());
              g.importe += toUnits(t.importe.toString());
            }
            trasladoGroups.set(key, g);
          }
          for (const r of c.retenciones) {
            checkTaxWindow(r.base.toString(), r.tasaOCuota!, r.importe!.toString());
            retencionGroups.set(r.impuesto, (retencionGroups.get(r.impuesto) ?? 0n) + toUnits(r.importe!.toString()));
          }
        });
        // CFDI40108/40111: currency decimals, round(Σ).
        expect(decimalsOf(model.subTotal.toString())).toBe(decimals);
        expect(toUnits(model.subTotal.toString())).toBe(roundTo(subtotal, decimals));
        if (model.descuento) expect(toUnits(model.descuento.toString())).toBe(roundTo(descuentoTotal, decimals));
        // CFDI40215/40221/40211: summaries are the rounded sums per group.
        let tt = 0n;
        for (const t of model.impuestos?.traslados ?? []) {
          const g = trasladoGroups.get(`${t.impuesto}|${t.tipoFactor}|${t.tasaOCuota ?? ''}`)!;
          expect(toUnits(t.base.toString())).toBe(roundTo(g.base, decimals));
          if (t.importe) {
            expect(toUnits(t.importe.toString())).toBe(roundTo(g.importe, decimals));
            tt += toUnits(t.importe.toString());
          }
        }
        let tr = 0n;
        for (const r of model.impuestos?.retenciones ?? []) {
          expect(toUnits(r.importe.toString())).toBe(roundTo(retencionGroups.get(r.impuesto)!, decimals));
          tr += toUnits(r.importe.toString());
        }
        // CFDI40119: Total = SubTotal − Descuento + traslados − retenciones, never negative.
        const total = toUnits(model.subTotal.toString()) - (model.descuento ? toUnits(model.descuento.toString()) : 0n) + tt - tr;
        expect(toUnits(model.total.toString())).toBe(total);
        expect(total >= 0n).toBe(true);
        expect(decimalsOf(model.total.toString())).toBe(decimals);
        // JSON numbers print back exactly.
        expect(String(Number(model.total.toString()))).toBe(model.total.trim(0).toString());
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000) },
    );
  }, 60_000);
});

/** CFDI40180/40186: trunc((Base − ½·10^−dB)·Tasa) ≤ Importe ≤ ceil((Base + ½·10^−dB − 10^−12)·Tasa). */
function checkTaxWindow(base: string, tasa: string, importe: string) {
  const half = pow(SCALE - decimalsOf(base)) / 2n;
  const d = decimalsOf(importe);
  const low = truncTo(mul(toUnits(base) - half, toUnits(tasa)), d);
  const high = ceilTo(mul(toUnits(base) + half - 1n, toUnits(tasa)), d);
  expect(toUnits(importe) >= low && toUnits(importe) <= high).toBe(true);
}

function fmt(u: bigint, d: number): string {
  const s = (u / pow(SCALE - d)).toString().padStart(d + 1, '0');
  return d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s;
}
