import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Db } from '../db/client.ts';
import type { BackendEnv } from '../lib/backend.ts';
import { errorResponse, errorResponses, jsonResponse, paginated, PaginationQuery } from '../lib/schemas.ts';
import { CATALOGS, getCatalogEntry, listCatalog, SEARCH_CANDIDATES } from './service.ts';

const errors = errorResponses('invoices');

const tags = ['Catálogos SAT'];
const names = Object.keys(CATALOGS) as [string, ...string[]];
const Catalogo = z.enum(names, { message: `must be one of ${names.join(', ')}` }).openapi({
  param: { name: 'catalogo', in: 'path' },
  description: Object.entries(CATALOGS).map(([k, v]) => `\`${k}\`: ${v.title}`).join('; '),
  example: 'productos-servicios',
});

const Entry = z
  .object({
    clave: z.string(),
    descripcion: z.string(),
    vigencia: z.object({ desde: z.string().nullable(), hasta: z.string().nullable() }),
  })
  .catchall(z.unknown())
  .openapi('CatalogEntry', { description: 'A catalog key with its description and validity; each catalog adds its own columns (persona_fisica, decimales, estado, …)' });

const ListQuery = PaginationQuery.extend({
  q: z.string().max(100, 'must be at most 100 characters').optional().openapi({
    description:
      'Search. Digits: keys starting with them. Words: products/services and units by full text, every word required, accents ignored ' +
      '("credito" finds "Crédito"); a word of two or more characters matches as a prefix ("torn" finds "Tornillos"), a one-character word ' +
      `only as a whole word ("vitamina c", "rayos x"). At most the ${SEARCH_CANDIDATES} best matches are returned (by relevance, a class whose own name matches ` +
      'first); refine the words to reach others. Other catalogs: by key or description',
    example: 'tornillo',
  }),
});

export function mountCatalogRoutes(app: OpenAPIHono<BackendEnv>, deps: { db: Db }) {
  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/catalogos/{catalogo}', tags, operationId: 'listCatalog',
      summary: 'A page of a SAT catalog, or a search in it',
      description: 'Catalog data ships with the service (SAT version in GET /health details.catalogs). Keys out of force keep their vigencia.hasta.',
      request: { params: z.object({ catalogo: Catalogo }), query: ListQuery },
      responses: { 200: jsonResponse(paginated(Entry), 'A page of entries'), 400: errorResponse('Invalid query or cursor'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await listCatalog(deps.db, c.req.valid('param').catalogo, c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/catalogos/{catalogo}/{clave}', tags, operationId: 'getCatalogEntry',
      summary: 'One key of a SAT catalog (e.g. a postal code with its estado, municipio and localidad)',
      request: {
        params: z.object({ catalogo: Catalogo, clave: z.string().min(1).max(20, 'must be at most 20 characters').openapi({ param: { name: 'clave', in: 'path' }, example: '01000' }) }),
      },
      responses: { 200: jsonResponse(Entry, 'The entry'), 400: errorResponse('Unknown catalog'), ...errors.unauthenticated, 404: errorResponse('Not a key of that catalog') },
    }),
    async (c) => {
      const { catalogo, clave } = c.req.valid('param');
      return c.json(await getCatalogEntry(deps.db, catalogo, clave), 200);
    },
  );
}
