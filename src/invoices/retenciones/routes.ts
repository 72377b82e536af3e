import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { BATCH_MAX_BODY_BYTES, errorResponse, errorResponses, jsonBody, jsonResponse, paginated } from '../../lib/schemas.ts';
import { issueRetencionBatch } from './batch.ts';
import { RetencionBatchExamples, RetencionExamples } from './examples.ts';
import { issueRetencion, resumeRetencion, validateRetencion, type RetencionDeps } from './issue.ts';
import { getRetencion, getRetencionXml, listRetenciones } from './reads.ts';
import {
  BATCH_MAX_ITEMS,
  RetencionBatchItemSchema,
  RetencionBatchRequestSchema,
  RetencionBatchResultSchema,
  RetencionIssueHeaders,
  RetencionListItemSchema,
  RetencionListQuery,
  RetencionRefParams,
  RetencionRequestSchema,
  RetencionSchema,
  RetencionValidationSchema,
} from './schemas.ts';

const tags = ['Retenciones'];
const BATCH_MAX_BODY_MIB = BATCH_MAX_BODY_BYTES / (1024 * 1024);
const errors = errorResponses('invoices');

export function mountRetencionRoutes(app: OpenAPIHono<BackendEnv>, deps: RetencionDeps) {
  // The batch's items refer to it (RetencionBatchRequestSchema), so the document describes it as a component.
  app.openAPIRegistry.register('RetencionBatchItem', RetencionBatchItemSchema);
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/retenciones',
      tags,
      operationId: 'issueRetencion',
      summary: 'Issue, seal and stamp a CFDI de Retenciones e información de pagos 2.0',
      description:
        "A document of its own (retenciones:Retenciones 2.0), not a CFDI tipo. The emisor comes from the tenant, the seal from its active CSD, FolioInt from the tenant's " +
        'series (the series name and its folio joined, e.g. A15; `serie` as for CFDIs). MontoTotExent, MontoTotRet and each MontoRet (base_ret × tasa) are computed ' +
        "when not sent; Servicios de Plataformas Tecnológicas, Dividendos and Pagos a extranjeros are structured, SAT's other complements go as XML in " +
        "complementos_xml. Every SAT rule that applies is checked and all problems are returned at once (400, each with the field and the rule code of SAT's " +
        'Matriz de errores de Retenciones 2.0 where one applies). With a sk_test_ key (or a JWT in test) the sandbox stamps it in process with a TFD 1.1 signed ' +
        'by the sandbox certificate (201). Live mode is refused for now (422, error code `retenciones_live_unsupported`): the PACs this service speaks to are not ' +
        'yet asked to stamp Retenciones. Send `Idempotency-Key` to make retries safe, as on POST /cfdis. Stamping announces the webhook event `retencion.timbrada`.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { body: jsonBody(RetencionRequestSchema, RetencionExamples), headers: RetencionIssueHeaders },
      responses: {
        201: jsonResponse(RetencionSchema, 'Stamped'),
        400: errorResponse('Invalid data or fails SAT validation (details name the field, and the rule code where SAT gives one)'),
        ...errors.adminOrOperator,
        409: errorResponse('Idempotency-Key reused with another body, or another request with it still running (error code `idempotency_key_in_use`)'),
        422: errorResponse('Live mode: Retenciones are not stamped live yet (error code `retenciones_live_unsupported`); or rejected by the stamping provider'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const body = claim?.resumed
        ? await resumeRetencion(deps, actorOf(c), claim.resumed)
        : await issueRetencion(deps, actorOf(c), c.req.valid('json'), { bindIdempotency: claim?.bind, auditIn: c.get('auditIn') });
      return c.json(body, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/retenciones/batch',
      tags,
      operationId: 'issueRetencionBatch',
      summary: "Issue many retenciones in one call (a platform's month for its sellers)",
      description:
        `1 to ${BATCH_MAX_ITEMS} items, each a POST /retenciones request with its own \`idempotency_key\`; the body may be up to ${BATCH_MAX_BODY_MIB} MiB ` +
        '(this route only; every other takes 1 MiB). Each item is checked and issued as POST /retenciones issues one, in its own transaction (its folio, ' +
        'document, `retencion.timbrada` event and audit entry), and answered in `results`, in order: `created`, `duplicate` (its key issued a retención ' +
        'before: nothing new is issued, the answer names that retención; a retried batch creates nothing new) or `invalid` (refused with its problems, ' +
        "fields relative to the item; nothing stored, no folio taken). An invalid item does not fail the others: the answer is 200 whatever each item's " +
        'outcome. Items keys are kept with the retención, per tenant and environment, for as long as it exists. The audit log has an entry per ' +
        'retención created and one for the call. Live mode is refused as on POST /retenciones (422, `retenciones_live_unsupported`).',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { body: jsonBody(RetencionBatchRequestSchema, RetencionBatchExamples), headers: RetencionIssueHeaders },
      responses: {
        200: jsonResponse(RetencionBatchResultSchema, "Each item's outcome, in order"),
        400: errorResponse("Malformed request (not an object with 1 to 1,000 items); an item's own problems are answered in its result"),
        ...errors.adminOrOperator,
        409: errorResponse('Idempotency-Key (the header, for the whole call) reused with another body, or still running'),
        413: errorResponse(`Body over ${BATCH_MAX_BODY_MIB} MiB`),
        422: errorResponse('Live mode: Retenciones are not stamped live yet (error code `retenciones_live_unsupported`)'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await issueRetencionBatch(deps, actorOf(c), c.req.valid('json').items, { auditIn: c.get('auditIn') }), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/retenciones/validate',
      tags,
      operationId: 'validateRetencion',
      summary: 'Apply the Retenciones rules without stamping',
      description:
        'Same checks as POST /retenciones (the series and the CSD included); takes no folio, stores nothing. In live mode the first error names the ' +
        'refusal POST /retenciones would answer (field `environment`).',
      request: { body: jsonBody(RetencionRequestSchema, RetencionExamples) },
      responses: { 200: jsonResponse(RetencionValidationSchema, 'The verdict'), 400: errorResponse('Malformed request'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await validateRetencion(deps, actorOf(c), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/retenciones',
      tags,
      operationId: 'listRetenciones',
      summary: 'List retenciones, newest first',
      request: { query: RetencionListQuery },
      responses: { 200: jsonResponse(paginated(RetencionListItemSchema), 'A page of retenciones'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listRetenciones(deps.db, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/retenciones/{id}',
      tags,
      operationId: 'getRetencion',
      summary: 'Get a retención by its ret_ id or its UUID',
      request: { params: RetencionRefParams },
      responses: {
        200: jsonResponse(RetencionSchema, 'The retención'),
        400: errorResponse('Not a ret_ id or a UUID'),
        404: errorResponse('No such retención'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await getRetencion(deps.db, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/retenciones/{id}/xml',
      tags,
      operationId: 'downloadRetencionXml',
      summary: 'Download the stamped XML, byte for byte',
      request: { params: RetencionRefParams },
      responses: {
        200: { description: 'The XML as stamped', content: { 'application/xml': { schema: z.string().openapi({ format: 'binary' }) } } },
        400: errorResponse('Not a ret_ id or a UUID'),
        404: errorResponse('No such retención, or not stamped'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const { uuid, xml } = await getRetencionXml(deps.db, actorOf(c), c.req.valid('param').id);
      return c.body(new Uint8Array(xml), 200, { 'Content-Type': 'application/xml', 'Content-Disposition': `attachment; filename=${uuid}.xml` });
    },
  );
}
