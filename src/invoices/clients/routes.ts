import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { DeletedSchema, errorResponse, errorResponses, idParam, jsonBody, jsonResponse, paginated } from '../../lib/schemas.ts';
import { ClientCreateSchema, ClientListQuery, ClientPatchSchema, ClientSchema } from './schemas.ts';
import { createClient, deleteClient, getClient, listClients, updateClient, type ClientDeps } from './service.ts';
import { ClientCreateExamples, ClientPatchExamples } from './examples.ts';

const errors = errorResponses('invoices');

const tags = ['Clients'];
const Params = idParam('cli');
const write = requireRole('ADMIN', 'OPERATOR');
const common = {
  ...errors.unauthenticated,
  ...errors.adminOrOperator,
};
const RULES =
  'Checked with the SAT CFDI 4.0 receptor rules that need no SAT list (each error names the field and the rule): RFC pattern; ' +
  '"PUBLICO EN GENERAL" only with XAXX010101000 (CFDI40146); generic RFCs use régimen 616 (CFDI40159) and the issuer\'s postal code ' +
  '(CFDI40149); residencia_fiscal in c_Pais, not MEX, only for XEXX010101000 (CFDI40150–40152); num_reg_id_trib only for XEXX010101000, ' +
  "with residencia_fiscal and in that country's format (CFDI40153, 40154, 40156); régimen in c_RegimenFiscal for the persona type " +
  '(CFDI40157, 40158); uso_cfdi in c_UsoCFDI for the persona type and régimen (CFDI40160, 40161); domicilio_fiscal in c_CodigoPostal.';

export function mountClientRoutes(app: OpenAPIHono<BackendEnv>, deps: ClientDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/clients',
      tags,
      operationId: 'createClient',
      summary: 'Register a client (receptor) for invoices (ADMIN, OPERATOR)',
      description: `${RULES} Clients belong to the credential's environment. The RFC need not be unique (generic RFCs repeat).`,
      middleware: [write] as const,
      request: { body: jsonBody(ClientCreateSchema, ClientCreateExamples) },
      responses: {
        201: jsonResponse(ClientSchema, 'Created'),
        400: errorResponse('Invalid input or a SAT receptor rule broken (details name the field and rule)'),
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed
        ? await getClient(deps, actorOf(c), claim.resumed)
        : await createClient(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/clients',
      tags,
      operationId: 'listClients',
      summary: "List the tenant's clients in this environment, optionally searching by RFC prefix or name",
      request: { query: ClientListQuery },
      responses: { 200: jsonResponse(paginated(ClientSchema), 'A page of clients'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listClients(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/clients/{id}',
      tags,
      operationId: 'getClient',
      summary: 'Get a client',
      request: { params: Params },
      responses: {
        200: jsonResponse(ClientSchema, 'The client'),
        404: errorResponse('No such client in this tenant and environment'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await getClient(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/clients/{id}',
      tags,
      operationId: 'updateClient',
      summary: 'Change a client (ADMIN, OPERATOR); the result is checked as a whole',
      description: `${RULES} Send null to clear email, residencia_fiscal or num_reg_id_trib.`,
      middleware: [write] as const,
      request: { params: Params, body: jsonBody(ClientPatchSchema, ClientPatchExamples) },
      responses: {
        200: jsonResponse(ClientSchema, 'Updated'),
        400: errorResponse('Invalid input or a SAT receptor rule broken (details name the field and rule)'),
        404: errorResponse('No such client in this tenant and environment'),
        ...common,
      },
    }),
    async (c) => c.json(await updateClient(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/clients/{id}',
      tags,
      operationId: 'deleteClient',
      summary: 'Delete a client (ADMIN, OPERATOR); invoices already issued keep their receptor data',
      middleware: [write] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(DeletedSchema, 'Deleted'), 404: errorResponse('No such client in this tenant and environment'), ...common },
    }),
    async (c) => c.json(await deleteClient(deps, actorOf(c), c.req.valid('param').id), 200),
  );
}
