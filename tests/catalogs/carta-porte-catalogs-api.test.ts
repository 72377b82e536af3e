import { beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, issuer } from '../helpers.ts';

/** Issue 23, acceptance 4: the Carta Porte 3.1 catalogs through the API — search, the hazardous flag, lookups, 404. */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, { keys: ['test'] })).key;
});
const get = (path: string) => t.call('GET', path, { token: key });
type Page = { data: { clave: string; descripcion: string; [k: string]: unknown }[]; pagination: { has_more: boolean; next_cursor?: string; limit: number } };

describe('productos-servicios-carta-porte', () => {
  test('"diesel" finds the diesel fuels, which say they are hazardous; a "0,1" key says it may be', async () => {
    const res = await get('/catalogos/productos-servicios-carta-porte?q=diesel&limit=50');
    expect(res.status).toBe(200);
    const page = res.json as Page;
    const byKey = new Map(page.data.map((e) => [e.clave, e]));
    expect(byKey.get('15101505')).toMatchObject({ descripcion: 'Combustible diesel', material_peligroso: '1', peligroso: 'si' });
    expect(byKey.get('15101513')).toMatchObject({ material_peligroso: '1', peligroso: 'si' });
    expect(byKey.get('26101504')).toMatchObject({ descripcion: 'Motores diesel', material_peligroso: '0,1', peligroso: 'puede_serlo' });
    expect(byKey.get('25121501')).toMatchObject({ material_peligroso: '0', peligroso: 'no' });
    // SAT's similar words are searched too: 25191803's description says "diesel" but its similar words "diésel"
    expect(page.data.every((e) => /di[eé]sel/i.test(`${e.descripcion} ${e.palabras_similares ?? ''}`))).toBe(true);
  });

  test('accents ignored, words all required; a key lookup; an unknown key → 404 naming the catalog', async () => {
    const page = (await get('/catalogos/productos-servicios-carta-porte?q=DIÉSEL%20combust')).json as Page;
    expect(page.data.map((e) => e.clave)).toEqual(expect.arrayContaining(['15101505', '15101513']));
    expect(page.data.every((e) => /combust/i.test(e.descripcion))).toBe(true);
    const one = await get('/catalogos/productos-servicios-carta-porte/15101505');
    expect(one.status).toBe(200);
    expect(one.json).toEqual({
      clave: '15101505',
      descripcion: 'Combustible diesel',
      material_peligroso: '1',
      peligroso: 'si',
      vigencia: { desde: '2024-07-17', hasta: null },
    });
    const missing = await get('/catalogos/productos-servicios-carta-porte/99999999');
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('99999999 is not a key of c_ClaveProdServCP');
  });
});

describe('materiales-peligrosos', () => {
  test('a UN number with its class, and search over descriptions and technical names', async () => {
    const diesel = await get('/catalogos/materiales-peligrosos/1202');
    expect(diesel.status).toBe(200);
    expect(diesel.json).toMatchObject({ clave: '1202', clase_o_div: '3', vigencia: { desde: '2024-07-17', hasta: null } });
    expect(diesel.json.descripcion).toContain('DIESEL');
    expect(diesel.json).not.toHaveProperty('peligro_secundario'); // SAT's column is empty for 1202
    const search = (await get('/catalogos/materiales-peligrosos?q=gasolina')).json as Page;
    expect(search.data.map((e) => e.clave)).toContain('1203');
    const technical = (await get('/catalogos/materiales-peligrosos/1993')).json;
    expect(technical).toMatchObject({ clase_o_div: '3', nombre_tecnico: 'Líquidos inflamables.' });
    expect((await get('/catalogos/materiales-peligrosos/9999')).status).toBe(404);
  });

  test('a key with a secondary hazard says which', async () => {
    const page = (await get('/catalogos/materiales-peligrosos?q=10&limit=100')).json as Page;
    expect(page.data.length).toBeGreaterThan(10);
    expect(page.data.every((e) => e.clave.startsWith('10'))).toBe(true);
    const withSecondary = page.data.find((e) => typeof e.peligro_secundario === 'string');
    expect(withSecondary?.peligro_secundario).toMatch(/^\d/);
  });
});

describe('the small catalogs', () => {
  test('configuraciones-autotransporte: axles, tyres and whether a trailer goes', async () => {
    expect((await get('/catalogos/configuraciones-autotransporte/C2')).json).toMatchObject({
      clave: 'C2',
      numero_ejes: 2,
      numero_llantas: 6,
      remolque: '0',
      lleva_remolque: 'no',
    });
    expect((await get('/catalogos/configuraciones-autotransporte/T3S2')).json).toMatchObject({ remolque: '1', lleva_remolque: 'si' });
    // SAT writes "0, 1" in this catalog: the same spelling as the products' "0,1"
    expect((await get('/catalogos/configuraciones-autotransporte/VL')).json).toMatchObject({ remolque: '0,1', lleva_remolque: 'opcional' });
  });

  test('estaciones, tipos-permiso, regimenes-aduaneros, tipos-estacion with their columns', async () => {
    expect((await get('/catalogos/estaciones/PM001')).json).toMatchObject({
      clave: 'PM001',
      descripcion: 'Rosarito',
      clave_transporte: '02',
      nacionalidad: 'México',
    });
    const rail = (await get('/catalogos/estaciones?q=monterrey&limit=100')).json as Page;
    expect(rail.data.length).toBeGreaterThan(0);
    expect(rail.data.every((e) => /monterrey/i.test(e.descripcion))).toBe(true);
    expect(rail.data.some((e) => e.clave_transporte === '04' && typeof e.linea_ferrea === 'string')).toBe(true);
    expect((await get('/catalogos/tipos-permiso/TPAF01')).json).toMatchObject({ claves_transporte: ['01'] });
    expect((await get('/catalogos/tipos-permiso/TPXX00')).json).toMatchObject({ claves_transporte: ['01', '02', '03'] });
    expect((await get('/catalogos/regimenes-aduaneros/IMD')).json).toMatchObject({ entrada: true, salida: false });
    expect((await get('/catalogos/regimenes-aduaneros/EXD')).json).toMatchObject({ entrada: false, salida: true });
    expect((await get('/catalogos/tipos-estacion/01')).json).toMatchObject({ descripcion: 'Origen Nacional', claves_transporte: ['02', '03', '04'] });
  });

  test('fracciones-arancelarias by digits and by words, with the customs unit', async () => {
    expect((await get('/catalogos/fracciones-arancelarias/0101210100')).json).toMatchObject({ descripcion: 'Reproductores de raza pura', unidad_aduana: '07' });
    const prefix = (await get('/catalogos/fracciones-arancelarias?q=2710&limit=100')).json as Page;
    expect(prefix.data.length).toBeGreaterThan(5);
    expect(prefix.data.every((e) => e.clave.startsWith('2710'))).toBe(true);
    const words = (await get('/catalogos/fracciones-arancelarias?q=reproductores')).json as Page;
    expect(words.data.map((e) => e.clave)).toContain('0101210100');
  });

  test('the plain filter: figuras, embalajes, unidades de peso by name, an authorisation key with "/"', async () => {
    expect(((await get('/catalogos/figuras-transporte?q=operador')).json as Page).data.map((e) => e.clave)).toEqual(['01']);
    expect(((await get('/catalogos/tipos-embalaje?q=bidones%20(tambores)%20de%20acero')).json as Page).data.map((e) => e.clave)).toEqual(
      expect.arrayContaining(['1A1', '1A2']),
    );
    // X1A has no description in SAT's sheet, only a name
    const weight = (await get('/catalogos/unidades-peso?q=tambor%20de%20acero')).json as Page;
    expect(weight.data.find((e) => e.clave === 'X1A')).toMatchObject({ nombre: 'Tambor de acero', bandera: 'Embalaje' });
    expect((await get('/catalogos/unidades-peso/KGM')).json).toMatchObject({ bandera: 'Masa' });
    const naviero = await get(`/catalogos/autorizaciones-navieras/${encodeURIComponent('SCT418/068/2018')}`);
    expect(naviero.status).toBe(200);
    expect(naviero.json).toMatchObject({ clave: 'SCT418/068/2018', vigencia: { desde: '2018-12-26', hasta: '2023-12-27' } });
    expect((await get('/catalogos/tipos-carro/TC05')).json).toMatchObject({ contenedor: true });
    expect((await get('/catalogos/derechos-paso/CDP001')).json).toMatchObject({ descripcion: 'D-1', otorga_recibe: 'Recibe' });
    expect((await get('/catalogos/codigos-transporte-aereo/CA001')).json).toMatchObject({ nacionalidad: 'Asiáticas', designador_oaci: 'ANA' });
  });

  test('unknown keys → 404 in each; every catalog lists', async () => {
    for (const [catalogo, clave] of [
      ['tipos-remolque', 'CTR999'],
      ['sectores-cofepris', '99'],
      ['claves-transporte', '05'], // Ducto: in the schema, not in the 3.1 sheet
      ['estaciones', 'XX999'],
    ] as const) {
      const res = await get(`/catalogos/${catalogo}/${clave}`);
      expect(res.status, `${catalogo}/${clave}`).toBe(404);
      expect(res.json.error.details[0].field).toBe('clave');
    }
    const counts: Record<string, number> = {};
    for (const catalogo of ['claves-transporte', 'figuras-transporte', 'sectores-cofepris', 'tipos-materia', 'contenedores', 'registros-istmo']) {
      counts[catalogo] = ((await get(`/catalogos/${catalogo}?limit=100`)).json as Page).data.length;
    }
    expect(counts).toEqual({
      'claves-transporte': 4,
      'figuras-transporte': 5,
      'sectores-cofepris': 5,
      'tipos-materia': 5,
      contenedores: 5,
      'registros-istmo': 6,
    });
  });
});
