/**
 * The amount in Spanish words, as printed on Mexican invoices: "MIL DOSCIENTOS PESOS 50/100 M.N.".
 * Works on the decimal string of the XML (never a float): integer part in words, fraction as digits over 10^decimals.
 */

const UNITS = [
  '',
  'UN',
  'DOS',
  'TRES',
  'CUATRO',
  'CINCO',
  'SEIS',
  'SIETE',
  'OCHO',
  'NUEVE',
  'DIEZ',
  'ONCE',
  'DOCE',
  'TRECE',
  'CATORCE',
  'QUINCE',
  'DIECISÉIS',
  'DIECISIETE',
  'DIECIOCHO',
  'DIECINUEVE',
  'VEINTE',
  'VEINTIÚN',
  'VEINTIDÓS',
  'VEINTITRÉS',
  'VEINTICUATRO',
  'VEINTICINCO',
  'VEINTISÉIS',
  'VEINTISIETE',
  'VEINTIOCHO',
  'VEINTINUEVE',
];
const TENS = ['', '', '', 'TREINTA', 'CUARENTA', 'CINCUENTA', 'SESENTA', 'SETENTA', 'OCHENTA', 'NOVENTA'];
const HUNDREDS = ['', 'CIENTO', 'DOSCIENTOS', 'TRESCIENTOS', 'CUATROCIENTOS', 'QUINIENTOS', 'SEISCIENTOS', 'SETECIENTOS', 'OCHOCIENTOS', 'NOVECIENTOS'];

/** 1–999, with "un" (apocope): the number always stands before a noun (mil, millones, pesos). */
function below1000(n: number): string {
  if (n === 100) return 'CIEN';
  const h = Math.floor(n / 100);
  const rest = n % 100;
  const words: string[] = [];
  if (h) words.push(HUNDREDS[h]!);
  if (rest > 0 && rest < 30) words.push(UNITS[rest]!);
  else if (rest >= 30) words.push(rest % 10 ? `${TENS[Math.floor(rest / 10)]} Y ${UNITS[rest % 10]}` : TENS[rest / 10]!);
  return words.join(' ');
}

/** 0–999,999: "MIL", not "UN MIL". */
function below1e6(n: number): string {
  const thousands = Math.floor(n / 1000);
  const rest = n % 1000;
  const words: string[] = [];
  if (thousands === 1) words.push('MIL');
  else if (thousands > 1) words.push(`${below1000(thousands)} MIL`);
  if (rest) words.push(below1000(rest));
  return words.join(' ');
}

/** Integer words (long scale: millón 10^6, billón 10^12), and whether it ends in millón/billón (then "DE PESOS"). */
function integerInWords(value: bigint): { words: string; endsInScale: boolean } {
  if (value === 0n) return { words: 'CERO', endsInScale: false };
  const billions = value / 10n ** 12n;
  const millions = (value / 10n ** 6n) % 10n ** 6n;
  const rest = Number(value % 10n ** 6n);
  const words: string[] = [];
  if (billions > 0n) words.push(billions === 1n ? 'UN BILLÓN' : `${below1e6(Number(billions))} BILLONES`);
  if (millions > 0n) words.push(millions === 1n ? 'UN MILLÓN' : `${below1e6(Number(millions))} MILLONES`);
  if (rest) words.push(below1e6(rest));
  return { words: words.join(' '), endsInScale: rest === 0 };
}

const CURRENCY_NAMES: Record<string, { one: string; many: string; suffix: string }> = {
  MXN: { one: 'PESO', many: 'PESOS', suffix: 'M.N.' },
  USD: { one: 'DÓLAR', many: 'DÓLARES', suffix: 'USD' },
  EUR: { one: 'EURO', many: 'EUROS', suffix: 'EUR' },
};

/**
 * "MIL DOSCIENTOS PESOS 50/100 M.N.". `decimals` is the currency's (c_Moneda): the fraction is printed over
 * 10^decimals, padded or cut to that many digits (the XML total never carries more than the currency allows).
 * Currencies other than MXN, USD and EUR are named by their code: "CIEN GBP 00/100".
 */
export function amountInWords(amount: string, currency: string, decimals = 2): string {
  const [intPart = '0', fracPart = ''] = amount.replace(/^-/, '').split('.');
  const { words, endsInScale } = integerInWords(BigInt(intPart || '0'));
  const name = CURRENCY_NAMES[currency];
  const isOne = BigInt(intPart || '0') === 1n;
  const noun = name ? (isOne ? name.one : name.many) : currency;
  const fraction = decimals > 0 ? ` ${fracPart.padEnd(decimals, '0').slice(0, decimals)}/1${'0'.repeat(decimals)}` : '';
  return `${words}${endsInScale && name ? ' DE' : ''} ${noun}${fraction}${name ? ` ${name.suffix}` : ''}`;
}
