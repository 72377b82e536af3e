import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { MAX_PBKDF2_ITERATIONS } from '../../cfdi/csd.ts';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { DeletedSchema, errorResponse, errorResponses, formBody, idParam, jsonResponse, paginated, PaginationQuery } from '../../lib/schemas.ts';
import { CsdSchema, CsdUploadSchema } from './schemas.ts';
import type { RateLimits } from '../../gateway/rate-limit.ts';
import { activateCsd, createCsdUploadLimiter, CSD_UPLOADS_PER_HOUR, deactivateCsd, deleteCsd, getCsd, listCsds, uploadCsd, type CsdDeps } from './service.ts';
import { CsdUploadExamples } from './examples.ts';

const errors = errorResponses('invoices');

const tags = ['CSDs'];
const Params = idParam('csd');
const common = {
  ...errors.unauthenticated,
  ...errors.admin,
};

export function mountCsdRoutes(app: OpenAPIHono<BackendEnv>, deps: CsdDeps & { rateLimits: RateLimits }) {
  const uploads = createCsdUploadLimiter(deps.rateLimits);
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/csds',
      tags,
      operationId: 'uploadCsd',
      summary: 'Upload a seal certificate (CSD): .cer, .key and its password (ADMIN)',
      description:
        "Checked as a PAC would: a CSD (a FIEL is rejected), valid now, issued by SAT (not self-signed, the issuer's organization SAT; with a " +
        "test credential it must chain to SAT's test certification authorities, signatures verified; with a live one it must not: a test CSD " +
        "cannot sign live invoices, 400 naming `cer`), issued to the tenant's RFC, the password " +
        "opens the key and the key belongs to the certificate. The key's encryption is read before the password is tried: PBES2 with PBKDF2 (HMAC-SHA1 or HMAC-SHA256) " +
        `and DES-EDE3-CBC or AES-CBC, at most ${MAX_PBKDF2_ITERATIONS} PBKDF2 iterations (SAT's keys use 2048); anything else → 400 naming \`key\`. ` +
        'The new CSD becomes the active one of its environment (the previous one becomes inactive). The private key ' +
        `is stored encrypted (AES-256-GCM under the master key); the password is never stored. Files over 64 KiB → 413. At most ${CSD_UPLOADS_PER_HOUR} ` +
        'uploads that try the password (the certificate passed its checks; accepted or refused) per tenant and environment in each clock hour; ' +
        'past that → 429 with `Retry-After` (seconds until the hour ends).',
      middleware: [requireRole('ADMIN')] as const,
      request: { body: formBody(CsdUploadSchema, CsdUploadExamples) },
      responses: {
        201: jsonResponse(CsdSchema, 'Stored and active'),
        400: errorResponse(
          'Not a CSD, expired, not issued by SAT, a test CSD in live, another RFC, wrong password, a key of another certificate, or a key encrypted with an algorithm or iteration count that is not accepted',
        ),
        409: errorResponse('This certificate is already stored'),
        413: errorResponse('A file is too large'),
        429: errorResponse(
          `More than ${CSD_UPLOADS_PER_HOUR} uploads that tried a password this hour for the tenant and environment; Retry-After says when to try again`,
        ),
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed
        ? await getCsd(deps, actorOf(c), claim.resumed)
        : await uploadCsd({ ...deps, uploads }, actorOf(c), c.req.valid('form'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/csds',
      tags,
      operationId: 'listCsds',
      summary: "List the tenant's CSDs in this environment",
      request: { query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(CsdSchema), 'A page of CSDs'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listCsds(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/csds/{id}',
      tags,
      operationId: 'getCsd',
      summary: 'Get a CSD',
      request: { params: Params },
      responses: { 200: jsonResponse(CsdSchema, 'The CSD'), 404: errorResponse('No such CSD in this tenant and environment'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getCsd(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/csds/{id}/activate',
      tags,
      operationId: 'activateCsd',
      summary: 'Make this CSD the one that seals (ADMIN); the other active one becomes inactive',
      middleware: [requireRole('ADMIN')] as const,
      request: { params: Params },
      responses: {
        200: jsonResponse(CsdSchema, 'Active'),
        404: errorResponse('No such CSD'),
        409: errorResponse("Expired, or in live a test CSD (issued by SAT's test authorities), which cannot sign live invoices"),
        ...common,
      },
    }),
    async (c) => c.json(await activateCsd(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/csds/{id}/deactivate',
      tags,
      operationId: 'deactivateCsd',
      summary: 'Stop sealing with this CSD (ADMIN)',
      middleware: [requireRole('ADMIN')] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(CsdSchema, 'Inactive'), 404: errorResponse('No such CSD'), 409: errorResponse('Expired'), ...common },
    }),
    async (c) => c.json(await deactivateCsd(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/csds/{id}',
      tags,
      operationId: 'deleteCsd',
      summary: 'Delete a CSD and its encrypted key (ADMIN)',
      middleware: [requireRole('ADMIN')] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(DeletedSchema, 'Deleted'), 404: errorResponse('No such CSD'), ...common },
    }),
    async (c) => c.json(await deleteCsd(deps, actorOf(c), c.req.valid('param').id), 200),
  );
}
