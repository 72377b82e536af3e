import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, idParam, jsonBody, jsonResponse, paginated, PaginationQuery } from '../../lib/schemas.ts';
import { SeriesCreateSchema, SeriesPatchSchema, SeriesSchema } from './schemas.ts';
import { createSeries, getSeries, listSeries, updateSeries, type SeriesDeps } from './service.ts';
import { SeriesCreateExamples, SeriesPatchExamples } from './examples.ts';

const errors = errorResponses('invoices');

const tags = ['Series'];
const Params = idParam('ser');
const write = requireRole('ADMIN', 'OPERATOR');
const common = {
  ...errors.unauthenticated,
  ...errors.adminOrOperator,
};

export function mountSeriesRoutes(app: OpenAPIHono<BackendEnv>, deps: SeriesDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/series',
      tags,
      operationId: 'createSeries',
      summary: 'Create an invoice series with its folio counter (ADMIN, OPERATOR)',
      description:
        'Folios are assigned consecutively, atomically with the invoice. Exactly one series per environment is the default (used when an ' +
        'invoice names no serie): the first one created, or the last one created or updated with default: true. When an invoice names no ' +
        'serie and none exists, series "A" is created as the default. Series cannot be deleted: their folios identify issued invoices.',
      middleware: [write] as const,
      request: { body: jsonBody(SeriesCreateSchema, SeriesCreateExamples) },
      responses: {
        201: jsonResponse(SeriesSchema, 'Created'),
        ...errors.invalidInput,
        409: errorResponse('A series with this name already exists in this environment'),
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed
        ? await getSeries(deps, actorOf(c), claim.resumed)
        : await createSeries(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/series',
      tags,
      operationId: 'listSeries',
      summary: "List the tenant's series in this environment",
      request: { query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(SeriesSchema), 'A page of series'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listSeries(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/series/{id}',
      tags,
      operationId: 'getSeries',
      summary: 'Get a series and its next folio',
      request: { params: Params },
      responses: {
        200: jsonResponse(SeriesSchema, 'The series'),
        404: errorResponse('No such series in this tenant and environment'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await getSeries(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/series/{id}',
      tags,
      operationId: 'updateSeries',
      summary: 'Move the next folio forward, make the series the default, or change its description (ADMIN, OPERATOR)',
      middleware: [write] as const,
      request: { params: Params, body: jsonBody(SeriesPatchSchema, SeriesPatchExamples) },
      responses: {
        200: jsonResponse(SeriesSchema, 'Updated'),
        ...errors.invalidInput,
        404: errorResponse('No such series in this tenant and environment'),
        409: errorResponse('folio_inicial below the next folio, or default: false on the default series'),
        ...common,
      },
    }),
    async (c) => c.json(await updateSeries(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
}
