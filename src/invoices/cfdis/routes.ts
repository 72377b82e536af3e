import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, idParam, jsonBody, jsonResponse, paginated } from '../../lib/schemas.ts';
import { SANDBOX_SCENARIOS } from '../../pac/types.ts';
import { sandboxScenarioOf } from '../scenario.ts';
import { CfdiExamples } from './examples.ts';
import {
  CfdiIssueHeaders,
  CfdiListItemSchema,
  CfdiExportQuery,
  CfdiListQuery,
  CfdiRequestSchema,
  CfdiSchema,
  CfdiUuidParams,
  CfdiValidationSchema,
  QueuedCfdiSchema,
  StampedCfdiSchema,
} from './schemas.ts';
import { issueCfdi, resumeIssue, validateCfdi, type CfdiDeps } from './issue.ts';
import { EXPORT_LIMIT, exportCfdis, getCfdi, getCfdiPdf, getCfdiXml, listCfdis } from './reads.ts';

const tags = ['CFDIs'];
const errors = errorResponses('invoices');

export function mountCfdiRoutes(app: OpenAPIHono<BackendEnv>, deps: CfdiDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/cfdis',
      tags,
      operationId: 'issueCfdi',
      summary: 'Issue, seal and stamp a CFDI 4.0',
      description:
        'Issuer data comes from the tenant; the seal from its active CSD. Defaults: moneda MXN, exportacion 01, metodo_pago PUE, forma_pago 99, ' +
        "fecha now (local time of the issuer's postal code), serie the default series. Every SAT rule that can be checked without SAT's private " +
        'lists is applied and all problems are returned at once (400, each with the rule code). With a sk_test_ key (or a JWT in test) the ' +
        'sandbox stamps in process with a real TFD 1.1 signed by the sandbox certificate (GET /sandbox/sat-certificate). ' +
        'Send `Idempotency-Key` to make retries safe: the first response is replayed for 24 h, and a retry after the service crashed mid-request ' +
        'answers from the invoice that request created instead of issuing another. A request arriving while another with its key is still running ' +
        '(on this instance or another) waits up to 8 s for that answer, then answers from the invoice it created, or 409 with error code ' +
        '`idempotency_key_in_use` when it has created none yet (retry later). When the provider is unavailable or does not ' +
        'answer within the synchronous budget the CFDI is queued (202, status en_cola, uuid null) and stamped by the scheduler; poll GET /cfdis/{id}. ' +
        'In test mode the header `X-Sandbox-Scenario` forces the synchronous attempt: `pac_unavailable` (→ 202, stamped by the next scheduled attempt), ' +
        '`pac_slow` (slower than the budget → 202, then stamped), `pac_rejected` (→ 422 with a provider code). It is ignored in live mode (with a Warning header).',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: {
        body: jsonBody(CfdiRequestSchema, CfdiExamples),
        headers: CfdiIssueHeaders,
      },
      responses: {
        201: jsonResponse(StampedCfdiSchema, 'Stamped'),
        202: jsonResponse(QueuedCfdiSchema, 'The provider is unavailable or slow: queued, stamped later (poll GET /cfdis/{id})'),
        400: errorResponse('Invalid data or fails SAT validation (details carry the rule code)'),
        ...errors.adminOrOperator,
        409: errorResponse(
          'Idempotency-Key reused with another body; another request with this Idempotency-Key still running (error code `idempotency_key_in_use`, retry later); or external_id already used by another invoice (details name it)',
        ),
        422: errorResponse('Rejected by the stamping provider'),
        503: errorResponse(
          "No stamping provider configured for live (details name PACS and each PAC's settings: SW_URL, SW_USER, SW_PASSWORD or the legacy PAC_URL, PAC_USER, PAC_PASSWORD; FINKOK_URL, FINKOK_USERNAME, FINKOK_PASSWORD): answered before any other check, the live CSD included",
        ),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const scenario = sandboxScenarioOf(c, SANDBOX_SCENARIOS);
      const claim = c.get('idempotency');
      const result = claim?.resumed
        ? await resumeIssue(deps, actorOf(c), claim.resumed)
        : await issueCfdi(deps, actorOf(c), c.req.valid('json'), { scenario, bindIdempotency: claim?.bind, auditIn: c.get('auditIn') });
      return result.queued ? c.json(result.body, 202) : c.json(result.body, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/cfdis/validate',
      tags,
      operationId: 'validateCfdi',
      summary: 'Apply the stamping rules without stamping',
      description:
        'Same checks as POST /cfdis (including the CSD); consumes no folio and contacts no PAC. In live without a configured PAC, the first error ' +
        'names the PAC settings (field `environment`): POST /cfdis would answer 503.',
      request: { body: jsonBody(CfdiRequestSchema, CfdiExamples) },
      responses: { 200: jsonResponse(CfdiValidationSchema, 'The verdict'), 400: errorResponse('Malformed request'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await validateCfdi(deps, actorOf(c), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis',
      tags,
      operationId: 'listCfdis',
      summary: 'List CFDIs, newest first',
      request: { query: CfdiListQuery },
      responses: { 200: jsonResponse(paginated(CfdiListItemSchema), 'A page of CFDIs'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listCfdis(deps, actorOf(c), c.req.valid('query')), 200),
  );

  // Before GET /cfdis/{id}, which would otherwise take `export.zip` for an id.
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/export.zip',
      tags,
      operationId: 'exportCfdis',
      summary: 'The stamped XMLs of every CFDI the filters match, as one ZIP',
      description:
        `The filters of GET /cfdis (without paging): one \`<uuid>.xml\` per stamped CFDI, exactly as GET /cfdis/{uuid}/xml answers it; ` +
        `queued and failed CFDIs have none and are left out. At most ${EXPORT_LIMIT}: when more match, 413 and nothing is sent (narrow the filters).`,
      request: { query: CfdiExportQuery },
      responses: {
        200: { description: 'The ZIP', content: { 'application/zip': { schema: z.string().openapi({ format: 'binary' }) } } },
        ...errors.invalidQuery,
        ...errors.unauthenticated,
        413: errorResponse(`More than ${EXPORT_LIMIT} stamped CFDIs match (details name \`query\`)`),
      },
    }),
    async (c) => {
      const { zip } = await exportCfdis(deps, actorOf(c), c.req.valid('query'));
      return c.body(zip as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/zip', 'Content-Disposition': 'attachment; filename=cfdis.zip' });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/{id}',
      tags,
      operationId: 'getCfdi',
      summary: 'Get a CFDI by its id (also while queued)',
      request: { params: idParam('cfdi') },
      responses: { 200: jsonResponse(CfdiSchema, 'The CFDI'), 404: errorResponse('No such CFDI'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getCfdi(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/{uuid}/xml',
      tags,
      operationId: 'downloadCfdiXml',
      summary: 'Download the stamped XML, byte for byte',
      request: { params: CfdiUuidParams },
      responses: {
        200: { description: 'The XML as stamped', content: { 'application/xml': { schema: z.string().openapi({ format: 'binary' }) } } },
        400: errorResponse('Not a UUID'),
        404: errorResponse('No such CFDI, or not stamped yet'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const { uuid, xml } = await getCfdiXml(deps, actorOf(c), c.req.valid('param').uuid);
      return c.body(new Uint8Array(xml), 200, {
        'Content-Type': 'application/xml',
        'Content-Disposition': `attachment; filename=${uuid}.xml`,
      });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/{uuid}/pdf',
      tags,
      operationId: 'downloadCfdiPdf',
      summary: 'Download the printed representation (PDF)',
      description:
        'Rendered on demand from the stored XML (the XML is the source of every value): issuer, receptor, conceptos with their taxes, totals and ' +
        'the total in words, related CFDI, información global, the stamp (UUID, certificate numbers, both seals, the TFD cadena) and the QR code ' +
        "with SAT's verification URL. Letter size, numbered pages; the tenant's logo and accent colour (PUT /tenants/me/logo, PATCH " +
        '/tenants/me). Sandbox (test) invoices carry "SIN VALIDEZ FISCAL — SANDBOX" on every page. Rendered once per state: the PDF is stored ' +
        "and served again until its bytes would change (the CFDI cancelled, the tenant's logo or accent colour changed, a new version of the " +
        'service), for this call, the portal and the emailed attachment alike. Rendered on worker threads, at most min(2, CPU cores) at ' +
        'once (CFDI_PDF_WORKERS), shared fairly: one tenant renders on at most all of them but one, with up to 4 more of its own waiting, beyond ' +
        'which it is answered 429 with Retry-After (the other tenants and the portal are not); up to 32 wait in all, beyond that 503 with ' +
        'Retry-After. A render that takes over 60 s is stopped (503 with Retry-After).',
      request: { params: CfdiUuidParams },
      responses: {
        200: { description: 'The PDF', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } },
        400: errorResponse('Not a UUID'),
        404: errorResponse('No such CFDI, or not stamped yet'),
        429: errorResponse("Too many of this tenant's PDFs are rendering and waiting (its share of the renderers): retry after Retry-After seconds"),
        503: errorResponse('Too many PDFs are being rendered, or this one took over 60 s: retry after Retry-After seconds'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const { uuid, pdf } = await getCfdiPdf(deps, actorOf(c), c.req.valid('param').uuid);
      return c.body(pdf as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/pdf', 'Content-Disposition': `attachment; filename=${uuid}.pdf` });
    },
  );
}
