import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { BATCH_MAX_BODY_BYTES, errorResponse, errorResponses, jsonBody, jsonResponse, PaginationQuery, paginated } from '../../lib/schemas.ts';
import { issueRetencionBatch } from './batch.ts';
import { cancelRetencion, type ConsultRetencion, getRetencionSatStatus, resumeCancelRetencion } from './cancellation.ts';
import { emailRetencion, listRetencionEmails, resumeEmailRetencion } from './email.ts';
import { RetencionBatchExamples, RetencionCancelExamples, RetencionEmailExamples, RetencionExamples, RetencionQueuedExample } from './examples.ts';
import { EMAIL_RULES } from '../emails/schemas.ts';
import { issueRetencion, resumeRetencion, validateRetencion, type RetencionDeps } from './issue.ts';
import { getRetencion, getRetencionPdf, getRetencionXml, listRetenciones } from './reads.ts';
import {
  BATCH_MAX_ITEMS,
  RetencionBatchItemSchema,
  RetencionBatchRequestSchema,
  RetencionBatchResultSchema,
  RetencionCancelBodySchema,
  RetencionEmailRequestSchema,
  RetencionEmailSchema,
  RetencionIssueHeaders,
  RetencionListItemSchema,
  RetencionListQuery,
  RetencionRefParams,
  RetencionRequestSchema,
  RetencionSatStatusSchema,
  RetencionSchema,
  RetencionValidationSchema,
} from './schemas.ts';

const tags = ['Retenciones'];
const BATCH_MAX_BODY_MIB = BATCH_MAX_BODY_BYTES / (1024 * 1024);
const errors = errorResponses('invoices');

export function mountRetencionRoutes(app: OpenAPIHono<BackendEnv>, deps: RetencionDeps & { consultRetencion: ConsultRetencion }) {
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
        'by the sandbox certificate (201). In live mode it is always queued (202, status en_cola, uuid null): sealed and stored, then stamped by a job ' +
        'through the live PACs in PACS order with failover, retried with backoff as a queued CFDI is; poll GET /retenciones/{id}. Stamped, it becomes ' +
        'vigente (`retencion.timbrada`); refused by the PAC for good (or still unstamped when its retries run out), fallido with failure_reason ' +
        '(`retencion.fallida`). No live PAC configured: 503. Send `Idempotency-Key` to make retries safe, as on POST /cfdis: the first response is ' +
        'replayed (a 202 stays the 202: poll GET /retenciones/{id}); a retry after the service crashed mid-request answers the retención as it is ' +
        'then (202 while queued, 201 once stamped, 422 if the PAC refused it).',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { body: jsonBody(RetencionRequestSchema, RetencionExamples), headers: RetencionIssueHeaders },
      responses: {
        201: jsonResponse(RetencionSchema, 'Stamped (test mode: the sandbox)'),
        202: jsonResponse(
          RetencionSchema,
          'Queued (live mode): sealed and stored en_cola, uuid null; a job stamps it through the live PACs',
          RetencionQueuedExample,
        ),
        400: errorResponse('Invalid data or fails SAT validation (details name the field, and the rule code where SAT gives one)'),
        ...errors.adminOrOperator,
        409: errorResponse('Idempotency-Key reused with another body, or another request with it still running (error code `idempotency_key_in_use`)'),
        413: errorResponse(
          'Body over the gateway limit (MAX_BODY_BYTES, 1 MiB by default): a Plataformas document of thousands of services; POST /retenciones/batch takes more',
        ),
        422: errorResponse('Rejected by the stamping provider (the sandbox; or, on an Idempotency-Key retry, the live PAC that refused it)'),
        503: errorResponse('Live mode with no PAC configured (PACS): nothing is stored'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const body = claim?.resumed
        ? await resumeRetencion(deps, actorOf(c), claim.resumed)
        : await issueRetencion(deps, actorOf(c), c.req.valid('json'), { bindIdempotency: claim?.bind, auditIn: c.get('auditIn') });
      return body.status === 'en_cola' ? c.json(body, 202) : c.json(body, 201);
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
        'document, `retencion.timbrada` event and audit entry; in live mode its stamp job instead), and answered in `results`, in order: `created` ' +
        '(stamped, test mode), `queued` (live mode: en_cola, stamped by its job as POST /retenciones answers 202), `duplicate` (its key issued a retención ' +
        'before: nothing new is issued, the answer names that retención; a retried batch creates nothing new) or `invalid` (refused with its problems, ' +
        "fields relative to the item; nothing stored, no folio taken). An invalid item does not fail the others: the answer is 200 whatever each item's " +
        'outcome. Items keys are kept with the retención, per tenant and environment, for as long as it exists. The audit log has an entry per ' +
        'retención created and one for the call. Live mode with no PAC configured: 503, as on POST /retenciones.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { body: jsonBody(RetencionBatchRequestSchema, RetencionBatchExamples), headers: RetencionIssueHeaders },
      responses: {
        200: jsonResponse(RetencionBatchResultSchema, "Each item's outcome, in order"),
        400: errorResponse("Malformed request (not an object with 1 to 1,000 items); an item's own problems are answered in its result"),
        ...errors.adminOrOperator,
        409: errorResponse('Idempotency-Key (the header, for the whole call) reused with another body, or still running'),
        413: errorResponse(`Body over ${BATCH_MAX_BODY_MIB} MiB`),
        503: errorResponse('Live mode with no PAC configured (PACS): nothing is stored'),
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
        'Same checks as POST /retenciones (the series and the CSD included); takes no folio, stores nothing. In live mode with no PAC configured the ' +
        'first error says so (field `environment`), as POST /retenciones answers 503.',
      request: { body: jsonBody(RetencionRequestSchema, RetencionExamples) },
      responses: {
        200: jsonResponse(RetencionValidationSchema, 'The verdict'),
        400: errorResponse('Malformed request'),
        413: errorResponse('Body over the gateway limit (MAX_BODY_BYTES, 1 MiB by default)'),
        ...errors.unauthenticated,
      },
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

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/retenciones/{id}/pdf',
      tags,
      operationId: 'downloadRetencionPdf',
      summary: 'Download the printed representation (PDF)',
      description:
        'Rendered on demand from the stored XML: emisor, receptor, periodo, totals and each tax withheld, the complements (a structured one in words, one ' +
        "sent as XML by its name), the stamp and the QR code with SAT's retenciones verification URL. The tenant's logo and accent colour as on a CFDI's PDF; " +
        'sandbox (test) retenciones carry "SIN VALIDEZ FISCAL — SANDBOX" on every page and a cancelled one its cancelled mark. Rendered on the same worker ' +
        "threads as CFDI PDFs, within the tenant's share of them (429 or 503 with Retry-After as GET /cfdis/{uuid}/pdf); not cached.",
      request: { params: RetencionRefParams },
      responses: {
        200: { description: 'The PDF', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } },
        400: errorResponse('Not a ret_ id or a UUID'),
        404: errorResponse('No such retención, or not stamped'),
        429: errorResponse("Too many of this tenant's PDFs are rendering and waiting: retry after Retry-After seconds"),
        503: errorResponse('Too many PDFs are being rendered, or this one took over 60 s: retry after Retry-After seconds'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const { uuid, pdf } = await getRetencionPdf(deps, actorOf(c), c.req.valid('param').id);
      return c.body(pdf as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/pdf', 'Content-Disposition': `attachment; filename=${uuid}.pdf` });
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/retenciones/{id}/cancel',
      tags,
      operationId: 'cancelRetencion',
      summary: 'Cancel a stamped retención with SAT',
      description:
        "Signs SAT's cancellation request for Retenciones (cancelacionretencion: the CFDI's Cancelacion in its own namespace) with the tenant's active CSD " +
        "(XML-DSig) and sends it to the PAC that stamped it (`pac`). A retención is cancelled without the receiver's acceptance: vigente → cancelado (200) " +
        'once SAT acknowledged it (the sandbox at once), ' +
        'and `retencion.cancelada` is emitted in the same transaction. Motivos as for CFDI: 01 names its replacement in `folio_sustitucion` (a vigente ' +
        'retención of this tenant issued with cfdi_reten_relacionados tipo_relacion 04 to this one), 02–04 do not (400 naming the field). Refused (409): ' +
        'not vigente (queued, failed or already cancelled), no usable CSD. A live PAC this service does not ask to cancel Retenciones: 422, error code ' +
        '`retenciones_cancel_unsupported` (field `pac`). ' +
        'Send `Idempotency-Key` to make a retry safe, as on POST /cfdis/{id}/cancel.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { params: RetencionRefParams, body: jsonBody(RetencionCancelBodySchema, RetencionCancelExamples), headers: RetencionIssueHeaders },
      responses: {
        200: jsonResponse(RetencionSchema, 'Cancelled: the retención, with its cancelacion'),
        400: errorResponse('Invalid motivo or folio_sustitucion (the details name the field), or not a ret_ id or a UUID'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        404: errorResponse('No such retención in this tenant and environment'),
        409: errorResponse(
          'Not vigente (en_cola, fallido, cancelado), no usable CSD; Idempotency-Key reused with another body, or another request with it still running (error code `idempotency_key_in_use`)',
        ),
        422: errorResponse(
          'Rejected by SAT (the retención stays vigente); or the PAC that stamped it is not asked to cancel Retenciones (error code `retenciones_cancel_unsupported`)',
        ),
        503: errorResponse('SAT did not take the request: the retención stays vigente; retry'),
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const body = claim?.resumed
        ? await resumeCancelRetencion(deps, actorOf(c), claim.resumed)
        : await cancelRetencion(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), { bindIdempotency: claim?.bind });
      return c.json(body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/retenciones/{id}/sat-status',
      tags,
      operationId: 'getRetencionSatStatus',
      summary: "SAT's status of a stamped retención",
      description:
        'SAT has no consultation service for Retenciones, only its verification page (the one the QR of the PDF opens): in live mode this asks that ' +
        "page (SAT_RETENCIONES_CONSULTA_URL) with the UUID, the emisor's RFC and the receptor's (none for a receptor Extranjero) and reads its " +
        "answer: Vigente, Cancelado with its date, or No Encontrado (SAT may take up to 72 hours to know a new one). In test mode the sandbox's " +
        'simulated SAT answers: Vigente, or Cancelado once POST /retenciones/{id}/cancel reached it. `fuente` says which. A page that does not ' +
        "answer, or that does not look as SAT's page is known to look, is 503 with Retry-After, never a guess. Read-only: it does not change the retención.",
      request: { params: RetencionRefParams },
      responses: {
        200: jsonResponse(RetencionSatStatusSchema, "SAT's answer"),
        400: errorResponse('Not a ret_ id or a UUID'),
        404: errorResponse('No such retención in this tenant and environment, or not stamped'),
        503: errorResponse("SAT's verification page did not answer, or answered a page we cannot read (details name `sat`); retry after Retry-After"),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await getRetencionSatStatus(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/retenciones/{id}/email',
      tags,
      operationId: 'emailRetencion',
      summary: 'Email a retención (XML and PDF) to its receptor',
      description:
        'Queues one message to `to` through the SMTP server of SMTP_URL, as POST /cfdis/{id}/email: Spanish text with your name, FolioInt, date, total ' +
        'withheld and folio fiscal (UUID), and `<uuid>.xml` and `<uuid>.pdf` attached, the same bytes as GET /retenciones/{id}/xml and /pdf (a cancelled ' +
        "one says so and carries the cancelled mark). Sent on the email workers' queue, in your tenant's lane, retried with backoff on 4xx or no " +
        'connection and ended as `failed` on 5xx. ' +
        EMAIL_RULES.replaceAll('one CFDI', 'one CFDI or retención'),
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { params: RetencionRefParams, body: jsonBody(RetencionEmailRequestSchema, RetencionEmailExamples), headers: RetencionIssueHeaders },
      responses: {
        202: jsonResponse(RetencionEmailSchema, 'Queued: the delivery record'),
        400: errorResponse(
          "An invalid address, more than 10, none, in test mode an address that is not one of your users', or this server has no SMTP configured (SMTP_URL): details name `to`",
        ),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        404: errorResponse('No such retención in this tenant and environment'),
        409: errorResponse('Not stamped: nothing to send; or Idempotency-Key reused with another body or still running'),
        429: errorResponse('An email budget is used up (email_daily or cfdi_daily, named with its limit and reset); Retry-After says when it resets'),
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const sending = claim?.resumed
        ? await resumeEmailRetencion(deps, actorOf(c), claim.resumed)
        : await emailRetencion(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), claim?.bind);
      return c.json(sending, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/retenciones/{id}/emails',
      tags,
      operationId: 'listRetencionEmails',
      summary: 'The emails of a retención, newest first',
      description: "Each sending with its status (queued, sent, failed), recipients, attempts, times and the SMTP server's last answer.",
      request: { params: RetencionRefParams, query: PaginationQuery },
      responses: {
        200: jsonResponse(paginated(RetencionEmailSchema), 'A page of sendings'),
        400: errorResponse('Not a ret_ id or a UUID, or an invalid query'),
        404: errorResponse('No such retención in this tenant and environment'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await listRetencionEmails(deps, actorOf(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
}
