import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { mountDocs } from '../docs/page.ts';
import { errorResponses, jsonResponse } from '../lib/schemas.ts';
import type { SandboxSat } from '../pac/sandbox.ts';
import type { GatewayEnv } from './gateway.ts';
import { type HealthDeps, mountHealth } from './health.ts';
import { buildOpenApiDocument } from './openapi.ts';

const errors = errorResponses('gateway');

export interface SystemDeps extends HealthDeps {
  /** The gateway's limit for calls without a credential, and its separate one for health probes. */
  anonymous: MiddlewareHandler<GatewayEnv>;
  probes: MiddlewareHandler<GatewayEnv>;
  sandboxSat: SandboxSat;
  /** Whose routes the OpenAPI document describes besides the gateway's own. */
  backends: Parameters<typeof buildOpenApiDocument>[1];
}

const RootSchema = z
  .object({
    docs: z.string().openapi({ example: '/docs' }),
    openapi: z.string().openapi({ example: '/api/v1/openapi.json' }),
    api: z.string().openapi({ example: '/api/v1' }),
    version: z.string().openapi({ example: '0.1.0' }),
  })
  .openapi('Root');

/**
 * The routes that need no credential and belong to no backend: GET /, the health probes, the OpenAPI document, the
 * sandbox's stamping certificate and the /docs page.
 */
export function mountSystemRoutes(app: OpenAPIHono<GatewayEnv>, deps: SystemDeps) {
  app.use('/', deps.anonymous);
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      operationId: 'getRoot',
      tags: ['System'],
      summary: 'Where to start: the API reference (/docs) and the OpenAPI document',
      description: 'A browser (Accept: text/html) is redirected to the API reference, /docs; anything else gets where to look as JSON.',
      security: [],
      responses: {
        200: jsonResponse(RootSchema, 'Where the reference, the OpenAPI document and the API are'),
        302: { description: 'To /docs (the request accepts text/html)', headers: { Location: { schema: { type: 'string', example: '/docs' } } } },
        ...errors.tooManyFromAddress,
      },
    }),
    (c) => {
      if (c.req.header('accept')?.includes('text/html')) return c.redirect('/docs', 302);
      return c.json({ docs: '/docs', openapi: '/api/v1/openapi.json', api: '/api/v1', version: deps.version }, 200);
    },
  );

  app.use('/api/v1/health', deps.probes);
  app.use('/api/v1/health/live', deps.probes);
  mountHealth(app, deps);

  app.use('/api/v1/sandbox/*', deps.anonymous);
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/sandbox/sat-certificate',
      operationId: 'getSandboxSatCertificate',
      tags: ['System'],
      summary: 'The sandbox stamping certificate (DER .cer)',
      description:
        'Verifies the SelloSAT of sandbox stamps (NoCertificadoSAT ' + deps.sandboxSat.noCertificado + '). Sandbox invoices have no fiscal validity.',
      security: [],
      responses: {
        200: { description: 'X.509 certificate, DER', content: { 'application/pkix-cert': { schema: z.string().openapi({ format: 'binary' }) } } },
        ...errors.tooManyFromAddress,
      },
    }),
    (c) =>
      c.body(new Uint8Array(deps.sandboxSat.certificateDer), 200, {
        'Content-Type': 'application/pkix-cert',
        'Content-Disposition': `attachment; filename=${deps.sandboxSat.noCertificado}.cer`,
      }),
  );

  let document: object | undefined;
  app.use('/api/v1/openapi.json', deps.anonymous);
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/openapi.json',
      operationId: 'getOpenApi',
      tags: ['System'],
      summary: 'This OpenAPI 3.1 description',
      security: [],
      responses: {
        200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: z.object({}).passthrough() } } },
        ...errors.tooManyFromAddress,
      },
    }),
    (c) => c.json((document ??= buildOpenApiDocument(app, deps.backends, deps.version)), 200),
  );

  app.use('/docs/*', deps.anonymous); // the page and its assets
  mountDocs(app);
}
