import { beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, issuer } from '../helpers.ts';

/** The Comercio Exterior 2.0 catalogs through the API: the four small ones by name, c_Colonia by código postal. */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, { keys: ['test'] })).key;
});
const get = (path: string) => t.call('GET', path, { token: key });

describe('unidades-aduana, incoterms, claves-pedimento, motivos-traslado', () => {
  test.each([
    ['unidades-aduana', '01', 'KILO'],
    ['incoterms', 'FCA', 'FRANCO TRANSPORTISTA'],
    ['claves-pedimento', 'A1', 'IMPORTACION O EXPORTACION DEFINITIVA'],
    ['motivos-traslado', '02', 'Reubicación de mercancías propias'],
  ])('%s: a page, a key, a search; an unknown key → 404', async (catalogo, clave, descripcion) => {
    const page = await get(`/catalogos/${catalogo}?limit=100`);
    expect(page.status).toBe(200);
    expect(page.json.data.map((e: { clave: string }) => e.clave)).toContain(clave);
    const one = await get(`/catalogos/${catalogo}/${clave}`);
    expect(one.status).toBe(200);
    expect(one.json.descripcion).toStartWith(descripcion);
    const found = await get(`/catalogos/${catalogo}?q=${encodeURIComponent(descripcion.split(' ')[0]!)}`);
    expect(found.json.data.map((e: { clave: string }) => e.clave)).toContain(clave);
    expect((await get(`/catalogos/${catalogo}/ZZ`)).status).toBe(404);
  });
});

describe('colonias by código postal (c_Colonia, read from the engine, not the database)', () => {
  test('64000: Monterrey Centro among them, with the estado and municipio of the code', async () => {
    const res = await get('/catalogos/colonias?codigo_postal=64000');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ codigo_postal: '64000', estado: 'NLE', municipio: '039' });
    expect(res.json.data).toContainEqual({ clave: '0001', nombre: 'Monterrey Centro' });
    expect(res.json.data).toContainEqual({ clave: '3429', nombre: 'La Finca' });
    // Only that code's colonias.
    expect((await get('/catalogos/colonias?codigo_postal=01000')).json.data).not.toContainEqual({ clave: '3429', nombre: 'La Finca' });
  });

  test('a code not in c_CodigoPostal → 404; a malformed or missing one → 400 naming codigo_postal', async () => {
    const missing = await get('/catalogos/colonias?codigo_postal=00000');
    expect(missing.status).toBe(404);
    expect(missing.json.error.details).toEqual([{ field: 'codigo_postal', issue: 'not in c_CodigoPostal' }]);
    for (const query of ['?codigo_postal=640', '?codigo_postal=6400A', '']) {
      const bad = await get(`/catalogos/colonias${query}`);
      expect(bad.status).toBe(400);
      expect(bad.json.error.details[0].field).toContain('codigo_postal');
    }
    // The other catalogs still answer on their own route.
    expect((await get('/catalogos/colonias/0001')).status).toBe(400);
  });
});
