import { catalogEntry, type CatalogName } from '../../catalogs/index.ts';
import { Dec } from '../decimal.ts';
import type { XmlNode } from '../xml.ts';

/** How the printed representation writes the document's values: amounts, rates, dates and catalog keys. */

/** "1234567.5" → "1,234,567.5": digits grouped, the decimals exactly as in the XML. */
export function groupDigits(amount: string | undefined): string {
  if (!amount) return '';
  const [int, frac] = amount.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

/** The decimals of a currency (c_Moneda): 2 for MXN and USD, 0 for JPY and XXX. */
export const currencyDecimals = (moneda: string | undefined): number => Number(catalogEntry('c_Moneda', moneda ?? 'MXN')?.decimales ?? '2');

/**
 * A unit price (or a cuota) with the currency's decimals, like the amounts beside it, unless the XML has more
 * significant ones, which are kept: "1000" → "1,000.00", "0.123450" → "0.12345" (never rounded: it is the value).
 */
export function unitAmount(value: string | undefined, decimals: number): string {
  if (!value) return '';
  return groupDigits(Dec.parse(value).trim(decimals).toString());
}

/** The currency's sign before an amount: "$1,160.00" for MXN, the ISO code for another ("USD 1,160.00"); none for XXX. */
export function money(amount: string, moneda: string | undefined): string {
  if (!amount || moneda === 'XXX') return amount;
  const negative = amount.startsWith('-');
  const sign = !moneda || moneda === 'MXN' ? '$' : `${moneda} `;
  return `${negative ? '-' : ''}${sign}${negative ? amount.slice(1) : amount}`;
}

/** A TasaOCuota as read: a Tasa as a percentage ("0.160000" → "16 %", "0.106667" → "10.6667 %"), a Cuota as the amount it is. */
export function rateText(tipoFactor: string | undefined, tasaOCuota: string | undefined): string {
  if (!tasaOCuota) return '';
  if (tipoFactor !== 'Tasa') return unitAmount(tasaOCuota, 2);
  return `${Dec.parse(tasaOCuota).mul(Dec.parse('100')).trim().toString()} %`;
}

/** SAT's local date-time "2026-11-20T12:00:00" as people in Mexico read it, "20/11/2026 12:00"; a date alone "20/11/2026". */
export function printedDate(value: string | undefined): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(value ?? '');
  if (!m) return value ?? '';
  return `${m[3]}/${m[2]}/${m[1]}${m[4] ? ` ${m[4]}:${m[5]}` : ''}`;
}

/** "601 - General de Ley Personas Morales"; the bare key when the catalog does not know it. */
export function described(catalog: CatalogName, key: string | undefined, column = 'descripcion'): string {
  if (!key) return '';
  const text = catalogEntry(catalog, key)?.[column];
  return text ? `${key} - ${text}` : key;
}

/** An amount of the document as printed: digits grouped, after the currency's sign ("1160.00" → "$1,160.00"). */
export const amountIn = (moneda: string | undefined, amount: string | undefined): string => money(groupDigits(amount), moneda);

/** One tax of a concepto, a DoctoRelacionado or a pago, as a note line; its Base and Importe in `moneda`. */
export const taxLine = (
  kind: string,
  t: { Impuesto?: string; TipoFactor?: string; TasaOCuota?: string; Base?: string; Importe?: string },
  moneda: string | undefined,
) =>
  `${kind} ${described('c_Impuesto', t.Impuesto)} ${t.TipoFactor ?? ''}${t.TasaOCuota ? ` ${rateText(t.TipoFactor, t.TasaOCuota)}` : ''}${t.Base ? ` · Base ${amountIn(moneda, t.Base)}` : ''}${t.Importe ? ` · Importe ${amountIn(moneda, t.Importe)}` : ''}`;

/** An element with nothing in it, read in place of an absent one. */
export const none: XmlNode = { name: '', attrs: {}, children: [] };
