import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { CFDI_STATUSES } from '../../db/schema/index.ts';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, ExternalId, idParam, jsonBody, jsonResponse, Metadata, paginated, PaginationQuery } from '../../lib/schemas.ts';
import { SANDBOX_SCENARIOS } from '../../pac/types.ts';
import { sandboxScenarioOf } from '../scenario.ts';
import { CfdiExamples } from './examples.ts';
import { CFDI_REF_PATTERN, CfdiRequestSchema } from './schemas.ts';
import { getCfdi, getCfdiPdf, getCfdiXml, issueCfdi, listCfdis, resumeIssue, validateCfdi, type CfdiDeps } from './service.ts';

const tags = ['CFDIs'];
const WARNINGS =
  'Non-blocking remarks, each opening with the field it concerns, e.g. a receptor RFC whose check digit is wrong: it is stamped ' +
  '(some older RFCs fail the digit) but a PAC refuses an RFC that is not in SAT\'s list (CFDI40143)';
const Num = z.number();

const CfdiSchema = z
  .object({
    id: z.string().openapi({ example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    uuid: z.string().nullable().openapi({ description: 'Folio fiscal; null while queued' }),
    tipo: z.string(),
    status: z.enum(CFDI_STATUSES),
    serie: z.string().nullable(),
    folio: z.number().int().nullable(),
    fecha: z.string().openapi({ description: 'Fecha of the CFDI: local time of the place of issue' }),
    emisor: z.object({ rfc: z.string(), nombre: z.string(), regimen_fiscal: z.string() }),
    receptor: z.object({ rfc: z.string(), nombre: z.string() }),
    conceptos: z.array(z.object({ descripcion: z.string(), cantidad: Num, valor_unitario: Num, importe: Num, descuento: Num.optional() })),
    moneda: z.string(),
    subtotal: Num,
    descuento: Num.optional(),
    total_impuestos_trasladados: Num.optional(),
    total_impuestos_retenidos: Num.optional(),
    total: Num,
    forma_pago: z.string().optional(),
    metodo_pago: z.string().optional(),
    pagos: z
      .array(
        z.object({
          fecha_pago: z.string(),
          forma_pago: z.string(),
          moneda: z.string(),
          tipo_cambio: z.string(),
          monto: Num,
          documentos: z.array(
            z.object({
              uuid: z.string(),
              moneda: z.string(),
              equivalencia: z.string(),
              num_parcialidad: z.number().int(),
              imp_saldo_ant: Num,
              imp_pagado: Num,
              imp_saldo_insoluto: Num,
            }),
          ),
        }),
      )
      .optional()
      .openapi({ description: 'Pago (P): the payments and the balance each paid document moved' }),
    nomina: z
      .object({ total_percepciones: Num.optional(), total_deducciones: Num.optional(), total_otros_pagos: Num.optional() })
      .optional()
      .openapi({ description: 'Nómina (N): the receipt totals' }),
    saldo_insoluto: Num.optional().openapi({ description: 'GET of a PPD Ingreso: what is still owed after the Pagos that stand (not cancelled or failed)' }),
    parcialidades: z.number().int().optional().openapi({ description: 'GET of a PPD Ingreso: how many instalments the standing Pagos cover' }),
    fecha_timbrado: z.string().nullable().openapi({ format: 'date-time', description: 'Stamping time, ISO 8601 UTC' }),
    sello_sat: z.string().nullable(),
    certificado_sat: z.string().nullable().openapi({ description: 'NoCertificadoSAT' }),
    cadena_original_sat: z.string().nullable().openapi({ description: 'Cadena original of the TFD' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    warnings: z.array(z.string()).optional().openapi({ description: WARNINGS }),
    external_id: z.string().nullable().openapi({ description: 'Your reference, as sent on POST /cfdis (null when none was)', example: 'SO-10482' }),
    metadata: Metadata.openapi({ description: 'Your key → value pairs, as sent on POST /cfdis ({} when none were)' }),
  })
  .openapi('Cfdi');

/** The 201 of POST /cfdis: stamped, so the fiscal fields are present (typed clients may rely on `uuid` being a string). */
const StampedCfdiSchema = CfdiSchema.extend({
  uuid: z.string().openapi({ description: 'Folio fiscal', example: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7' }),
  fecha_timbrado: z.string().openapi({ format: 'date-time', description: 'Stamping time, ISO 8601 UTC' }),
  sello_sat: z.string(),
  certificado_sat: z.string().openapi({ description: 'NoCertificadoSAT' }),
  cadena_original_sat: z.string().openapi({ description: 'Cadena original of the TFD' }),
}).openapi('CfdiStamped');

const QueuedSchema = z
  .object({
    id: z.string(),
    uuid: z.null(),
    tipo: z.string(),
    status: z.literal('en_cola'),
    external_id: z.string().nullable(),
    metadata: Metadata,
    mensaje: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('CfdiQueued');

const ListItem = z
  .object({
    id: z.string(),
    uuid: z.string().nullable(),
    tipo: z.string(),
    status: z.enum(CFDI_STATUSES),
    serie: z.string().nullable(),
    folio: z.number().int().nullable(),
    fecha: z.string(),
    receptor: z.object({ rfc: z.string(), nombre: z.string() }),
    moneda: z.string(),
    subtotal: Num,
    total: Num,
    external_id: z.string().nullable(),
    metadata: Metadata,
    created_at: z.string(),
  })
  .openapi('CfdiListItem');

const ValidationResult = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.object({ field: z.string(), issue: z.string(), rule: z.string().optional() })),
    warnings: z.array(z.string()).openapi({ description: WARNINGS }),
  })
  .openapi('CfdiValidation');

const dateParam = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$/, 'must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ss')
    .optional()
    .openapi({ param: { name, in: 'query' }, description: 'On the CFDI fecha (local time of issue)' });

const ListQuery = PaginationQuery.extend({
  status: z.enum(CFDI_STATUSES).optional().openapi({ param: { name: 'status', in: 'query' } }),
  tipo: z.enum(['I', 'E', 'P', 'N', 'T']).optional().openapi({ param: { name: 'tipo', in: 'query' } }),
  receptor_rfc: z.string().max(13).optional().openapi({ param: { name: 'receptor_rfc', in: 'query' } }),
  serie: z.string().max(25).optional().openapi({ param: { name: 'serie', in: 'query' } }),
  desde: dateParam('desde'),
  hasta: dateParam('hasta'),
  external_id: ExternalId.optional().openapi({ param: { name: 'external_id', in: 'query' }, description: 'Exactly this external_id (your reference sent on POST /cfdis)' }),
});

const UuidParams = z.object({
  uuid: z
    .string()
    .regex(CFDI_REF_PATTERN, 'must be a UUID (or a cfdi_ id)')
    .openapi({
      param: { name: 'uuid', in: 'path' },
      example: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7',
      description: 'The folio fiscal (UUID), any case; the cfdi_ id is accepted too, so a queued invoice gets a 404 that says it is not stamped yet',
    }),
});

const errors = errorResponses('invoices');

export function mountCfdiRoutes(app: OpenAPIHono<BackendEnv>, deps: CfdiDeps) {
  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/cfdis', tags, operationId: 'issueCfdi',
      summary: 'Issue, seal and stamp a CFDI 4.0',
      description:
        'Issuer data comes from the tenant; the seal from its active CSD. Defaults: moneda MXN, exportacion 01, metodo_pago PUE, forma_pago 99, ' +
        'fecha now (local time of the issuer\'s postal code), serie the default series. Every SAT rule that can be checked without SAT\'s private ' +
        'lists is applied and all problems are returned at once (400, each with the rule code). With a sk_test_ key (or a JWT in test) the ' +
        'sandbox stamps in process with a real TFD 1.1 signed by the sandbox certificate (GET /sandbox/sat-certificate). ' +
        'Send `Idempotency-Key` to make retries safe: the first response is replayed for 24 h, and a retry after the service crashed mid-request ' +
        'answers from the invoice that request created instead of issuing another. When the provider is unavailable or does not ' +
        'answer within the synchronous budget the CFDI is queued (202, status en_cola, uuid null) and stamped by the scheduler; poll GET /cfdis/{id}. ' +
        'In test mode the header `X-Sandbox-Scenario` forces the synchronous attempt: `pac_unavailable` (→ 202, stamped by the next scheduled attempt), ' +
        '`pac_slow` (slower than the budget → 202, then stamped), `pac_rejected` (→ 422 with a provider code). It is ignored in live mode (with a Warning header).',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: {
        body: jsonBody(CfdiRequestSchema, CfdiExamples),
        headers: z.object({
          'x-sandbox-scenario': z.string().optional().openapi({ enum: [...SANDBOX_SCENARIOS], description: 'Test mode only: forces the provider outcome (ignored in live mode)' }),
          'idempotency-key': z.string().optional().openapi({ description: 'Replays the first response for 24 h' }),
        }),
      },
      responses: {
        201: jsonResponse(StampedCfdiSchema, 'Stamped'),
        202: jsonResponse(QueuedSchema, 'The provider is unavailable or slow: queued, stamped later (poll GET /cfdis/{id})'),
        400: errorResponse('Invalid data or fails SAT validation (details carry the rule code)'),
        ...errors.adminOrOperator,
        409: errorResponse('Idempotency-Key reused with another body, or external_id already used by another invoice (details name it)'),
        422: errorResponse('Rejected by the stamping provider'),
        503: errorResponse('No stamping provider configured for live'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const scenario = sandboxScenarioOf(c, SANDBOX_SCENARIOS);
      const claim = c.get('idempotency');
      const result = claim?.resumed
        ? await resumeIssue(deps, actorOf(c), claim.resumed)
        : await issueCfdi(deps, actorOf(c), c.req.valid('json'), { scenario, bindIdempotency: claim?.bind });
      return result.queued ? c.json(result.body, 202) : c.json(result.body, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/cfdis/validate', tags, operationId: 'validateCfdi',
      summary: 'Apply the stamping rules without stamping',
      description: 'Same checks as POST /cfdis (including the CSD); consumes no folio and contacts no PAC.',
      request: { body: jsonBody(CfdiRequestSchema, CfdiExamples) },
      responses: { 200: jsonResponse(ValidationResult, 'The verdict'), 400: errorResponse('Malformed request'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await validateCfdi(deps, actorOf(c), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/cfdis', tags, operationId: 'listCfdis', summary: 'List CFDIs, newest first',
      request: { query: ListQuery },
      responses: { 200: jsonResponse(paginated(ListItem), 'A page of CFDIs'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listCfdis(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/cfdis/{id}', tags, operationId: 'getCfdi', summary: 'Get a CFDI by its id (also while queued)',
      request: { params: idParam('cfdi') },
      responses: { 200: jsonResponse(CfdiSchema, 'The CFDI'), 404: errorResponse('No such CFDI'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getCfdi(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/cfdis/{uuid}/xml', tags, operationId: 'downloadCfdiXml', summary: 'Download the stamped XML, byte for byte',
      request: { params: UuidParams },
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
      method: 'get', path: '/api/v1/cfdis/{uuid}/pdf', tags, operationId: 'downloadCfdiPdf', summary: 'Download the printed representation (PDF)',
      description:
        'Rendered on demand from the stored XML (the XML is the source of every value): issuer, receptor, conceptos with their taxes, totals and ' +
        'the total in words, related CFDI, información global, the stamp (UUID, certificate numbers, both seals, the TFD cadena) and the QR code ' +
        'with SAT\'s verification URL. Letter size, numbered pages; the tenant\'s logo and accent colour (PUT /tenants/me/logo, PATCH ' +
        '/tenants/me). Sandbox (test) invoices carry "SIN VALIDEZ FISCAL — SANDBOX" on every page. Rendered on worker threads, at most ' +
        'min(2, CPU cores) at once; up to 16 more wait their turn, beyond that 503 with Retry-After. A render that takes over 60 s is stopped (503 with Retry-After).',
      request: { params: UuidParams },
      responses: {
        200: { description: 'The PDF', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } },
        400: errorResponse('Not a UUID'),
        404: errorResponse('No such CFDI, or not stamped yet'),
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
