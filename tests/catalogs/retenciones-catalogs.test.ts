import { beforeAll, describe, expect, test } from 'bun:test';
import { catalogRows } from '../../src/catalogs/index.ts';
import {
  C_CVE_RETENC,
  C_TIPO_PAGO_RET,
  CVE_RETENC_DESCRIPCION,
  PERIODICIDAD_DESCRIPCION,
  TIPO_PAGO_RET_DESCRIPCION,
} from '../../src/cfdi/retenciones/catalogs.ts';
import { createTestApp, issuer } from '../helpers.ts';

/** The Retenciones 2.0 catalogs under /catalogos, and the shipped CSVs agreeing with the keys the engine checks. */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, { keys: ['test'] })).key;
});
const get = (path: string) => t.call('GET', path, { token: key });
const all = async (name: string) => {
  const res = await get(`/catalogos/${name}?limit=100`);
  expect(res.status).toBe(200);
  expect(res.json.pagination.has_more).toBe(false);
  return Object.fromEntries((res.json.data as { clave: string; descripcion: string }[]).map((e) => [e.clave, e.descripcion]));
};

describe('Retenciones 2.0 catalogs', () => {
  test('claves-retencion, tipos-pago-retencion and periodicidades-retencion list every key with its description', async () => {
    expect(await all('claves-retencion')).toEqual({ ...CVE_RETENC_DESCRIPCION });
    expect(await all('tipos-pago-retencion')).toEqual({ ...TIPO_PAGO_RET_DESCRIPCION });
    expect(await all('periodicidades-retencion')).toEqual({ ...PERIODICIDAD_DESCRIPCION });
  });

  test('one key by its path, a search, and 404 for a key SAT does not have', async () => {
    const one = await get('/catalogos/tipos-pago-retencion/04');
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ clave: '04', descripcion: 'Pago provisional ISR' });
    const found = await get('/catalogos/claves-retencion?q=Plataformas');
    expect(found.json.data.map((e: { clave: string }) => e.clave)).toEqual(['26']);
    expect((await get('/catalogos/claves-retencion/29')).status).toBe(404);
    expect((await get('/catalogos/tipos-pago-retencion/05')).status).toBe(404);
  });

  test("the CSVs hold exactly the engine's keys (catRetenciones.xsd as src/cfdi/retenciones/catalogs.ts has them)", () => {
    expect(new Set(catalogRows('c_CveRetenc').map((r) => r.clave))).toEqual(new Set(C_CVE_RETENC));
    expect(new Set(catalogRows('c_TipoPagoRet').map((r) => r.clave))).toEqual(new Set(C_TIPO_PAGO_RET));
  });
});
