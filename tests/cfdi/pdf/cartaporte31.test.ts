import { describe, expect, test } from 'bun:test';
import { cartaPorteVerificationUrl } from '../../../src/cfdi/qr.ts';

/** The second QR of a Carta Porte document: SAT's Carta Porte verification URL (docs/sat-rules.md §4). */
describe('the Carta Porte verification URL', () => {
  test("SAT's verificaccp service with IdCCP, the origin's date and the stamp's, as the XML writes them", () => {
    expect(
      cartaPorteVerificationUrl({ idCCP: 'CCC5f0c2-8b1e-4d7a-9c3f-2a6b7e9d1c04', fechaOrig: '2025-02-19T10:00:00', fechaTimb: '2025-02-19T08:33:10' }),
    ).toBe(
      'https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=CCC5f0c2-8b1e-4d7a-9c3f-2a6b7e9d1c04&FechaOrig=2025-02-19T10:00:00&FechaTimb=2025-02-19T08:33:10',
    );
  });
});
