import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Db } from '../db/client.ts';
import type { BackendEnv } from '../lib/backend.ts';
import { errorResponse, errorResponses, jsonResponse, paginated } from '../lib/schemas.ts';
import { Catalogo, Colonias, ColoniasQuery, Entry, ListQuery } from './schemas.ts';
import { getCatalogEntry, listCatalog, listColonias } from './service.ts';

const errors = errorResponses('invoices');

const tags = ['Catálogos SAT'];
export function mountCatalogRoutes(app: OpenAPIHono<BackendEnv>, deps: { db: Db }) {
  // Before /catalogos/{catalogo}: c_Colonia is not one of its catalogs (it is read by código postal, not paged).
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/catalogos/colonias',
      tags,
      operationId: 'listColonias',
      summary: 'The colonias of a postal code (c_Colonia), for a Comercio Exterior address in Mexico',
      description: "A Mexican Domicilio of Comercio Exterior names its colonia by this key (the emisor's always).",
      request: { query: ColoniasQuery },
      responses: {
        200: jsonResponse(Colonias, 'The colonias of the postal code (none for a code SAT lists without any)'),
        400: errorResponse('Invalid query'),
        ...errors.unauthenticated,
        404: errorResponse('Not a key of c_CodigoPostal'),
      },
    }),
    async (c) => c.json(listColonias(c.req.valid('query').codigo_postal), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/catalogos/{catalogo}',
      tags,
      operationId: 'listCatalog',
      summary: 'A page of a SAT catalog, or a search in it',
      description: 'Catalog data ships with the service (SAT version in GET /health details.catalogs). Keys out of force keep their vigencia.hasta.',
      request: { params: z.object({ catalogo: Catalogo }), query: ListQuery },
      responses: { 200: jsonResponse(paginated(Entry), 'A page of entries'), 400: errorResponse('Invalid query or cursor'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await listCatalog(deps.db, c.req.valid('param').catalogo, c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/catalogos/{catalogo}/{clave}',
      tags,
      operationId: 'getCatalogEntry',
      summary: 'One key of a SAT catalog (e.g. a postal code with its estado, municipio and localidad)',
      request: {
        params: z.object({
          catalogo: Catalogo,
          clave: z
            .string()
            .min(1)
            .max(20, 'must be at most 20 characters')
            .openapi({ param: { name: 'clave', in: 'path' }, example: '01000' }),
        }),
      },
      responses: {
        200: jsonResponse(Entry, 'The entry'),
        400: errorResponse('Unknown catalog'),
        ...errors.unauthenticated,
        404: errorResponse('Not a key of that catalog'),
      },
    }),
    async (c) => {
      const { catalogo, clave } = c.req.valid('param');
      return c.json(await getCatalogEntry(deps.db, catalogo, clave), 200);
    },
  );
}
