import { Dec } from '../../../decimal.ts';

/**
 * ValorDolares and SAT's windows around it. A value written with d decimals stands for anything within half a unit
 * of its last digit, so each bound takes every factor at the end of its own half-unit interval; the lower bound is
 * rounded half down and the upper half up, at two decimals (as the validators of SAT's matrix do).
 */

/** Half a unit of the last of `decimals` digits: 0.5, 0.05, 0.005, … */
export const halfUnit = (decimals: number): Dec => Dec.parse(`0.${'0'.repeat(decimals)}5`);

/** Rounds half toward zero (for the non-negative bounds it is used on): a tie goes down. */
const roundHalfDown = (x: Dec, digits: number): Dec => x.sub(halfUnit(digits)).ceil(digits);

/** Enough digits that the bounds' own rounding cannot move a two-decimal comparison. */
const QUOTIENT_DIGITS = 20;

export interface Window {
  min: Dec;
  max: Dec;
}

export const inside = (v: Dec, w: Window) => v.cmp(w.min) >= 0 && v.cmp(w.max) <= 0;

/** The exchange rates, each with its half-unit tolerance (none for a rate that is exact, as MXN's 1). */
export interface Rates {
  tipoCambio: Dec;
  tipoCambioTolerance: Dec;
  tipoCambioUSD: Dec;
}

/** Importe (in the comprobante's currency) converted to dollars: Importe × TipoCambio ÷ TipoCambioUSD, two decimals. */
export const valorDolares = (importe: Dec, r: Rates): Dec => importe.mul(r.tipoCambio).div(r.tipoCambioUSD, 2);

/** CCE205/CCE217: where a ValorDolares (or their sum for one NoIdentificacion) converted from `importe` may lie. */
export function importeWindow(importe: Dec, importeDecimals: number, r: Rates): Window {
  const hI = halfUnit(importeDecimals);
  const hU = halfUnit(r.tipoCambioUSD.decimals);
  const low = importe.sub(hI).mul(r.tipoCambio.sub(r.tipoCambioTolerance)).div(r.tipoCambioUSD.add(hU), QUOTIENT_DIGITS);
  const high = importe.add(hI).mul(r.tipoCambio.add(r.tipoCambioTolerance)).div(r.tipoCambioUSD.sub(hU), QUOTIENT_DIGITS);
  return { min: roundHalfDown(low.isNegative() ? Dec.ZERO : low, 2), max: high.round(2) };
}

/** CCE216: ValorDolares against CantidadAduana × ValorUnitarioAduana, each at its written precision. */
export function aduanaWindow(cantidadAduana: Dec, valorUnitarioAduana: Dec): Window {
  const hC = halfUnit(cantidadAduana.decimals);
  const hV = halfUnit(valorUnitarioAduana.decimals);
  const low = cantidadAduana.sub(hC).mul(valorUnitarioAduana.sub(hV));
  const high = cantidadAduana.add(hC).mul(valorUnitarioAduana.add(hV));
  return { min: roundHalfDown(low.isNegative() ? Dec.ZERO : low, 2), max: high.round(2) };
}
