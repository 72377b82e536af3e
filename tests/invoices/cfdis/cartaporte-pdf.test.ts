import { beforeAll, describe, expect, test } from 'bun:test';
import { CARTAS_PORTE } from '../../cfdi/cartaporte31/corpus.ts';
import { expectCartaPortePdf } from '../../cfdi/pdf/carta-porte.ts';
import { createTestApp, issuer, READY } from '../../helpers.ts';

/**
 * Issue 23, acceptance 3 through the API: the PDF of a stamped Carta Porte document shows the section with this
 * document's values and two QR codes, the CFDI's and the Carta Porte's, each decoding to SAT's verification URL
 * computed from the XML that GET /cfdis/{uuid}/xml serves (tests/cfdi/pdf/carta-porte.ts holds the checks).
 */
const t = await createTestApp();
let token = '';
beforeAll(async () => {
  token = (await issuer(t, READY)).key;
});

const MODES = [
  'Carta Porte T, autotransporte: hazardous',
  'Carta Porte I, autotransporte: international',
  'Carta Porte T, marítimo',
  'Carta Porte T, aéreo',
  'Carta Porte T, ferroviario',
];

describe('PDF of a stamped Carta Porte document', () => {
  for (const prefix of MODES) {
    const found = CARTAS_PORTE.find(([name]) => name.startsWith(prefix));
    test(prefix, async () => {
      expect(found).toBeDefined();
      const issued = await t.call('POST', '/cfdis', { token, body: found![1] });
      if (issued.status !== 201) throw new Error(`${issued.status} ${issued.text}`);
      const headers = { authorization: `Bearer ${token}` };
      const xml = await (await t.app.request(`/api/v1/cfdis/${issued.json.uuid}/xml`, { headers })).text();
      expect(xml).toContain('<cartaporte31:CartaPorte');
      const pdf = await t.app.request(`/api/v1/cfdis/${issued.json.uuid}/pdf`, { headers });
      expect(pdf.status).toBe(200);
      await expectCartaPortePdf(new Uint8Array(await pdf.arrayBuffer()), xml);
    });
  }
});
