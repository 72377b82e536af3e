import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { MAX_PBKDF2_ITERATIONS } from '../../cfdi/csd.ts';
import type { Tx } from '../../db/index.ts';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, formBody, jsonResponse } from '../../lib/schemas.ts';
import type { RateLimits } from '../../gateway/rate-limit.ts';
import { FielSchema, FielUploadSchema } from './schemas.ts';
import { FielUploadExamples } from './examples.ts';
import { createFielUploadLimiter, deleteFiel, FIEL_UPLOADS_PER_HOUR, getFiel, putFiel, type FielDeps } from './service.ts';

const errors = errorResponses('invoices');
const tags = ['FIEL'];
const common = { ...errors.unauthenticated, ...errors.admin };

/** The audit row of a FIEL write, in the write's own transaction: its action says whether a PUT replaced one. */
const auditOf = (c: Context<BackendEnv>) => async (tx: Tx, id: string, action: string, status: number) => {
  c.set('auditAction', action);
  await c.get('auditIn')?.(tx, id, status);
};

export function mountFielRoutes(app: OpenAPIHono<BackendEnv>, deps: FielDeps & { rateLimits: RateLimits }) {
  const uploads = createFielUploadLimiter(deps.rateLimits);
  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/v1/fiel',
      tags,
      operationId: 'putFiel',
      summary: "Store the tenant's FIEL (e.firma): .cer, .key and its password (ADMIN)",
      description:
        'The e.firma authenticates and signs Descarga Masiva requests to SAT; nothing uses it unless one is stored. One per tenant, ' +
        "shared by its test and live credentials (it is the taxpayer's, not an environment's); a PUT replaces the one before " +
        '(201 when there was none, 200 when it replaced one; the audit log says which). Checked as SAT would: a FIEL (a CSD is ' +
        'refused, 400 naming `cer`: SAT tells them apart by the key usage: a CSD only signs, a FIEL also enciphers, agrees keys and authenticates clients), valid now (an ' +
        "expired one → 400 with its dates), issued by SAT (with a test credential, chained to SAT's test authorities, as CSDs are), " +
        "issued to the tenant's RFC (400 naming `cer`), the password opens the key (400 naming `password`) and the key belongs " +
        `to the certificate (400 naming \`key\`). Keys as for CSDs: PBES2, at most ${MAX_PBKDF2_ITERATIONS} PBKDF2 iterations. ` +
        'The private key is stored encrypted (AES-256-GCM under the master key); the password is never stored. Files over 64 KiB → 413. ' +
        `At most ${FIEL_UPLOADS_PER_HOUR} uploads that try the password per tenant in each clock hour; past that → 429 with \`Retry-After\`.`,
      middleware: [requireRole('ADMIN')] as const,
      request: { body: formBody(FielUploadSchema, FielUploadExamples) },
      responses: {
        200: jsonResponse(FielSchema, 'Stored, replacing the previous FIEL'),
        201: jsonResponse(FielSchema, 'Stored'),
        400: errorResponse(
          'A CSD instead of a FIEL, expired, not issued by SAT, another RFC, wrong password, a key of another certificate, or a key encrypted in a way that is not accepted',
        ),
        413: errorResponse('A file is too large'),
        429: errorResponse(`More than ${FIEL_UPLOADS_PER_HOUR} uploads that tried a password this hour for the tenant; Retry-After says when to try again`),
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      if (claim?.resumed) return c.json(await getFiel(deps, actorOf(c)), 201);
      const audit = auditOf(c);
      const { fiel, replaced } = await putFiel({ ...deps, uploads }, actorOf(c), c.req.valid('form'), {
        audit: (tx, id, replaced) => audit(tx, id, replaced ? 'replaceFiel' : 'putFiel', replaced ? 200 : 201),
        bindIdempotency: claim?.bind,
      });
      return replaced ? c.json(fiel, 200) : c.json(fiel, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/fiel',
      tags,
      operationId: 'getFiel',
      summary: "The tenant's FIEL: certificate data and expiry (never the key)",
      responses: { 200: jsonResponse(FielSchema, 'The FIEL'), 404: errorResponse('The tenant has no FIEL'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getFiel(deps, actorOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/fiel',
      tags,
      operationId: 'deleteFiel',
      summary: "Delete the tenant's FIEL and its encrypted key (ADMIN)",
      description: 'The row goes, with the encrypted key: nothing is kept. 204 also when the tenant had none (a DELETE is idempotent).',
      middleware: [requireRole('ADMIN')] as const,
      responses: { 204: { description: 'Deleted, or there was none' }, ...common },
    }),
    async (c) => {
      const audit = auditOf(c);
      await deleteFiel(deps, actorOf(c), (tx, id) => audit(tx, id, 'deleteFiel', 204));
      return c.body(null, 204);
    },
  );
}
