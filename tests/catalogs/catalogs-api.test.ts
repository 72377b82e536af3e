import { beforeAll, describe, expect, test } from 'bun:test';
import { CATALOG_VERSION } from '../../src/catalogs/index.ts';
import { SEARCH_CANDIDATES } from '../../src/catalogs/service.ts';
import { createTestApp, issuer } from '../helpers.ts';

/** Issue 10, acceptance 1: the SAT catalogs through the API — search, lookups, 404, pagination. */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, { keys: ['test'] })).key;
});
const get = (path: string) => t.call('GET', path, { token: key });
type Page = { data: { clave: string; descripcion: string; [k: string]: unknown }[]; pagination: { has_more: boolean; next_cursor?: string; limit: number } };

describe('productos-servicios search', () => {
  test('"tornillo": the 31161500 family (Tornillos) first, then other screws', async () => {
    const res = await get('/catalogos/productos-servicios?q=tornillo&limit=40');
    expect(res.status).toBe(200);
    const page = res.json as Page;
    expect(page.data[0]!.clave).toBe('31161500');
    const family = page.data.findIndex((e) => !e.clave.startsWith('311615'));
    expect(family).toBeGreaterThan(25); // the whole family (30+ keys) before anything else
    expect(page.data.slice(0, family).every((e) => e.clave.startsWith('311615'))).toBe(true);
    expect(page.data.slice(family).some((e) => /tornillo/i.test(e.descripcion))).toBe(true);
  });

  test('accent-insensitive and by prefix: "credito" finds "Crédito"; "tarj cred" finds credit-card holders', async () => {
    const page = (await get('/catalogos/productos-servicios?q=credito')).json as Page;
    expect(page.data.map((e) => e.clave)).toContain('84121503'); // Cooperativas de crédito
    expect(page.data.every((e) => /cr[ée]dito/i.test(`${e.descripcion} ${e.palabras_similares ?? ''}`))).toBe(true);
    const both = (await get('/catalogos/productos-servicios?q=tarj%20cred')).json as Page;
    expect(both.data.map((e) => e.clave)).toContain('44111613');
  });

  test('SAT\'s similar words are searched too ("pija" finds screws)', async () => {
    const page = (await get('/catalogos/productos-servicios?q=pija')).json as Page;
    expect(page.data.map((e) => e.clave)).toContain('31161503');
  });

  test('digits search key prefixes; search pages follow their cursor without repeats', async () => {
    const prefix = (await get('/catalogos/productos-servicios?q=311615&limit=100')).json as Page;
    expect(prefix.data.length).toBeGreaterThan(30);
    expect(prefix.data.every((e) => e.clave.startsWith('311615'))).toBe(true);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = (await get(`/catalogos/productos-servicios?q=tornillo&limit=25${cursor ? `&cursor=${cursor}` : ''}`)).json as Page;
      seen.push(...page.data.map((e) => e.clave));
      expect(page.pagination.limit).toBe(25);
      if (!page.pagination.has_more) break;
      cursor = page.pagination.next_cursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(90); // every "tornillo" row of the catalog
  });

  test('a one-letter word matches that whole word, not every word it starts ("x" finds rayos x, not xilocaína)', async () => {
    const page = (await get('/catalogos/productos-servicios?q=x&limit=100')).json as Page;
    expect(page.data.map((e) => e.clave)).toContain('41101802'); // Generadores de rayos x
    expect(page.data.every((e) => /(^|[^\p{L}\p{N}])x($|[^\p{L}\p{N}])/iu.test(`${e.descripcion} ${e.palabras_similares ?? ''}`))).toBe(true);
    const vitamin = (await get('/catalogos/productos-servicios?q=vitamina%20c')).json as Page;
    expect(vitamin.data.map((e) => e.clave)).toContain('12162201'); // Ácido ascórbico, SAT's similar words: Vitamina C
  });

  test(`a broad word pages through its ${SEARCH_CANDIDATES} best matches, each once; repeating a word changes nothing`, async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (await get(`/catalogos/productos-servicios?q=de&limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json as Page;
      seen.push(...page.data.map((e) => e.clave));
      cursor = page.pagination.next_cursor;
    } while (cursor && ++pages < 30);
    expect(seen.length).toBe(SEARCH_CANDIDATES); // "de" is in 22,000 descriptions
    expect(new Set(seen).size).toBe(seen.length);
    const once = (await get('/catalogos/productos-servicios?q=del&limit=50')).json as Page;
    const repeated = (await get(`/catalogos/productos-servicios?q=${encodeURIComponent('de DEL de del')}&limit=50`)).json as Page;
    expect(repeated.data.map((e) => e.clave)).toEqual(once.data.map((e) => e.clave));
  });
});

describe('lookups and small catalogs', () => {
  test('a product key with its flags; an unknown key → 404; an unknown catalog → 400', async () => {
    const ok = await get('/catalogos/productos-servicios/31161500');
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ clave: '31161500', descripcion: 'Tornillos', incluir_iva_trasladado: '0', vigencia: { desde: '2019-01-07', hasta: null } });
    const missing = await get('/catalogos/productos-servicios/99999999');
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('99999999 is not a key of c_ClaveProdServ');
    const unknown = await get('/catalogos/planetas');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details[0].field).toBe('catalogo');
  });

  test('a postal code with its estado, municipio and localidad', async () => {
    const res = await get('/catalogos/codigos-postales/01000');
    expect(res.json).toMatchObject({
      clave: '01000',
      estado: { clave: 'CMX', nombre: 'Ciudad de México' },
      municipio: { clave: '010', nombre: 'Álvaro Obregón' },
      huso_horario: 'Tiempo del Centro',
    });
    expect((await get('/catalogos/codigos-postales/00000')).status).toBe(404);
    const page = (await get('/catalogos/codigos-postales?q=4250')).json as Page;
    expect(page.data.map((e) => e.clave)).toContain('42501');
  });

  test('régimen fiscal with persona física/moral; uso CFDI with the receptor regimes; monedas with decimals', async () => {
    const regimenes = (await get('/catalogos/regimenes-fiscales?limit=100')).json as Page;
    expect(regimenes.data.find((r) => r.clave === '601')).toMatchObject({ persona_fisica: false, persona_moral: true });
    expect(regimenes.data.find((r) => r.clave === '605')).toMatchObject({ persona_fisica: true, persona_moral: false });
    const g03 = (await get('/catalogos/usos-cfdi/G03')).json;
    expect(g03.regimenes_receptor).toContain('601');
    expect((await get('/catalogos/monedas/JPY')).json).toMatchObject({ clave: 'JPY', decimales: 0 });
    expect((await get('/catalogos/motivos-cancelacion?limit=10')).json.data.map((m: { clave: string }) => m.clave)).toEqual(['01', '02', '03', '04']);
    const search = (await get('/catalogos/formas-pago?q=tarjeta')).json as Page;
    expect(search.data.map((f) => f.clave)).toEqual(expect.arrayContaining(['04', '28']));
  });

  test('Nómina catalogs; ClaveEntFed lists Mexican states only', async () => {
    expect((await get('/catalogos/tipos-percepcion/001')).json.descripcion).toContain('Sueldos');
    const estados = (await get('/catalogos/estados-nomina?limit=100')).json as Page;
    expect(estados.data).toHaveLength(33);
    expect(estados.data.map((e) => e.clave)).toContain('JAL');
    expect((await get('/catalogos/estados-nomina/JAL')).json.descripcion).toBe('Jalisco');
  });

  test('keyset pagination walks a catalog exactly once; limit is checked', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await get(`/catalogos/usos-cfdi?limit=7${cursor ? `&cursor=${cursor}` : ''}`)).json as Page;
      seen.push(...page.data.map((e) => e.clave));
      cursor = page.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain('CP01');
    expect((await get('/catalogos/usos-cfdi?limit=0')).status).toBe(400);
    expect((await get('/catalogos/usos-cfdi?cursor=garbage')).status).toBe(400);
    expect((await get('/catalogos/productos-servicios?q=%25%25')).status).toBe(400);
  });

  test('needs a credential; GET /health shows the catalog version', async () => {
    expect((await t.call('GET', '/catalogos/monedas')).status).toBe(401);
    const health = await t.call('GET', '/health');
    expect(health.json.details.catalogs).toEqual({ status: 'up', version: CATALOG_VERSION });
  });
});
