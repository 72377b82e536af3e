import { describe, expect, test } from 'bun:test';
import { amountInWords } from '../../src/cfdi/amount-words.ts';
import { formatTotalForQr, verificationUrl } from '../../src/cfdi/qr.ts';

describe('total in words (Spanish, as printed on Mexican invoices)', () => {
  const table: [string, string, string][] = [
    ['0.50', 'CERO PESOS 50/100 M.N.', 'CERO DÓLARES 50/100 USD'],
    ['1', 'UN PESO 00/100 M.N.', 'UN DÓLAR 00/100 USD'],
    ['15', 'QUINCE PESOS 00/100 M.N.', 'QUINCE DÓLARES 00/100 USD'],
    ['100', 'CIEN PESOS 00/100 M.N.', 'CIEN DÓLARES 00/100 USD'],
    ['1000', 'MIL PESOS 00/100 M.N.', 'MIL DÓLARES 00/100 USD'],
    ['1000000.99', 'UN MILLÓN DE PESOS 99/100 M.N.', 'UN MILLÓN DE DÓLARES 99/100 USD'],
    ['21001001.01', 'VEINTIÚN MILLONES MIL UN PESOS 01/100 M.N.', 'VEINTIÚN MILLONES MIL UN DÓLARES 01/100 USD'],
    ['1200.50', 'MIL DOSCIENTOS PESOS 50/100 M.N.', 'MIL DOSCIENTOS DÓLARES 50/100 USD'],
    ['131.31', 'CIENTO TREINTA Y UN PESOS 31/100 M.N.', 'CIENTO TREINTA Y UN DÓLARES 31/100 USD'],
    [
      '999999.99',
      'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE PESOS 99/100 M.N.',
      'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE DÓLARES 99/100 USD',
    ],
    ['2000000', 'DOS MILLONES DE PESOS 00/100 M.N.', 'DOS MILLONES DE DÓLARES 00/100 USD'],
    ['1001000000', 'MIL UN MILLONES DE PESOS 00/100 M.N.', 'MIL UN MILLONES DE DÓLARES 00/100 USD'],
    ['1000000000000', 'UN BILLÓN DE PESOS 00/100 M.N.', 'UN BILLÓN DE DÓLARES 00/100 USD'],
    ['516.2', 'QUINIENTOS DIECISÉIS PESOS 20/100 M.N.', 'QUINIENTOS DIECISÉIS DÓLARES 20/100 USD'],
  ];
  for (const [amount, mxn, usd] of table) {
    test(amount, () => {
      expect(amountInWords(amount, 'MXN')).toBe(mxn);
      expect(amountInWords(amount, 'USD')).toBe(usd);
    });
  }
  test('other currencies: named by code, fraction over the currency’s decimals', () => {
    expect(amountInWords('12345', 'JPY', 0)).toBe('DOCE MIL TRESCIENTOS CUARENTA Y CINCO JPY');
    expect(amountInWords('1.5', 'EUR')).toBe('UN EURO 50/100 EUR');
    expect(amountInWords('7.125', 'KWD', 3)).toBe('SIETE KWD 125/1000');
  });
});

describe('QR verification expression (docs/sat-rules.md §4)', () => {
  test('tt: six decimals, trailing zeros stripped, at least one kept', () => {
    expect(formatTotalForQr('1000.00')).toBe('1000.0');
    expect(formatTotalForQr('2010.01')).toBe('2010.01');
    expect(formatTotalForQr('459.36')).toBe('459.36');
    expect(formatTotalForQr('0')).toBe('0.0');
    expect(formatTotalForQr('12.3456789')).toBe('12.345679');
  });
  test('parameters in order, & in an RFC written &amp;, fe = last 8 characters of the Sello', () => {
    expect(
      verificationUrl({
        uuid: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7',
        rfcEmisor: 'EKU9003173C9',
        rfcReceptor: 'A&C010101AB1',
        total: '3327.01',
        sello: 'abcdefghXYZ123==',
      }),
    ).toBe(
      'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=6F35D3B5-3651-5370-BC2C-14CDBE384CD7&re=EKU9003173C9&rr=A&amp;C010101AB1&tt=3327.01&fe=XYZ123==',
    );
  });
});
