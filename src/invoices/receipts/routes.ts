import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonBody, jsonResponse, paginated } from '../../lib/schemas.ts';
import { QueuedCfdiSchema, StampedCfdiSchema } from '../cfdis/schemas.ts';
import { resumeIssue } from '../cfdis/issue.ts';
import { GlobalInvoiceExamples, ReceiptCreateExamples, ReceiptInvoiceExamples, ReceiptSettingsExamples } from './examples.ts';
import {
  GlobalInvoiceSchema,
  ReceiptCreateSchema,
  ReceiptInvoiceSchema,
  ReceiptListQuery,
  ReceiptParams,
  ReceiptSchema,
  ReceiptSettingsPatchSchema,
  ReceiptSettingsSchema,
} from './schemas.ts';
import {
  cancelReceipt,
  createReceipt,
  getReceipt,
  getReceiptSettings,
  invoiceReceipt,
  issueGlobalInvoice,
  listReceipts,
  updateReceiptSettings,
  type ReceiptDeps,
} from './service.ts';

const tags = ['Receipts'];
const errors = errorResponses('invoices');
const Params = ReceiptParams;
const write = requireRole('ADMIN', 'OPERATOR');
const issued = {
  201: jsonResponse(StampedCfdiSchema, 'Stamped: the CFDI'),
  202: jsonResponse(QueuedCfdiSchema, 'The provider is unavailable or slow: the CFDI is queued and the receipts are taken by it (poll GET /cfdis/{id})'),
};

export function mountReceiptRoutes(app: OpenAPIHono<BackendEnv>, deps: ReceiptDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/receipts',
      tags,
      operationId: 'createReceipt',
      summary: 'Record a sale to the public (a ticket) its customer can invoice',
      description:
        "The conceptos are checked with a CFDI's SAT rules and their amounts computed exactly as an invoice of them would be, so the ticket's " +
        "total is the invoice's. The answer carries `self_invoice_url`, the link (or QR) to print on the ticket: there its customer invoices it " +
        '(the self-invoicing portal), until `expires_at`; what nobody invoices goes into the global invoice of its period (POST /receipts/global-invoice).',
      middleware: [write] as const,
      request: { body: jsonBody(ReceiptCreateSchema, ReceiptCreateExamples) },
      responses: {
        201: jsonResponse(ReceiptSchema, 'Created (status open)'),
        400: errorResponse('Invalid conceptos or forma_pago (details name the field and SAT rule)'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        409: errorResponse('The folio is already used in this tenant and environment'),
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed
        ? await getReceipt(deps, actorOf(c), claim.resumed)
        : await createReceipt(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/receipts',
      tags,
      operationId: 'listReceipts',
      summary: 'List receipts, newest first, by status and day',
      request: { query: ReceiptListQuery },
      responses: { 200: jsonResponse(paginated(ReceiptSchema), 'A page of receipts'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listReceipts(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/receipts/settings',
      tags,
      operationId: 'getReceiptSettings',
      summary: 'The automatic global invoice setting',
      responses: { 200: jsonResponse(ReceiptSettingsSchema, 'The settings'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getReceiptSettings(deps, actorOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/receipts/settings',
      tags,
      operationId: 'updateReceiptSettings',
      summary: 'Have the service issue the global invoice by itself at the end of each period (ADMIN)',
      description:
        'With a periodicity, a scheduled task issues, shortly after each period ends (it runs at start and every night at 03:00), the global invoice of ' +
        "the period's open receipts, as POST /receipts/global-invoice would; a period without open receipts is passed over. It starts with the last period " +
        'that ended when it is turned on. A failure (for example no valid CSD) is logged and tried again at the next run.',
      middleware: [requireRole('ADMIN')] as const,
      request: { body: jsonBody(ReceiptSettingsPatchSchema, ReceiptSettingsExamples) },
      responses: {
        200: jsonResponse(ReceiptSettingsSchema, 'The settings'),
        400: errorResponse('Not a c_Periodicidad key'),
        ...errors.unauthenticated,
        ...errors.admin,
      },
    }),
    async (c) => c.json(await updateReceiptSettings(deps, actorOf(c), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/receipts/global-invoice',
      tags,
      operationId: 'issueGlobalInvoice',
      summary: 'Issue the global invoice (público en general) of a period’s open receipts',
      description:
        'One CFDI to XAXX010101000 "PUBLICO EN GENERAL" (régimen 616, uso S01, your postal code) with InformacionGlobal (periodicidad, meses, año) ' +
        'and one concepto per open receipt of the period: ClaveProdServ 01010101, ClaveUnidad ACT, Cantidad 1, Descripcion "Venta", the receipt\'s folio as ' +
        'NoIdentificacion, its subtotal as ValorUnitario, its discount, and its taxes summed per impuesto and tasa. FormaPago is the one that paid the most. ' +
        "Each receipt is marked invoiced by it in the same transaction. The period is `desde`–`hasta` (issuer's local dates, within one month — one " +
        'bimester for 05 — so that Meses names it), or `meses` and `anio` for 04 and 05. With `replaces` it replaces an earlier global invoice: ' +
        "a vigente one by SAT's substitution (TipoRelacion 04, taking over its receipts), a cancelled one by issuing its period again.",
      middleware: [write] as const,
      request: { body: jsonBody(GlobalInvoiceSchema, GlobalInvoiceExamples) },
      responses: {
        ...issued,
        400: errorResponse(
          'An invalid period, no open receipt in it, an invalid `replaces`, the CFDI fails a SAT rule (details name the field and rule), or email_to on a server without SMTP configured',
        ),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        409: errorResponse(
          'A receipt of the period was invoiced or cancelled, or the replaced global invoice changed, while the global invoice was issued: send it again',
        ),
        422: errorResponse('Rejected by the stamping provider'),
        503: errorResponse('No PAC for the live environment'),
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const result = claim?.resumed
        ? await resumeIssue(deps, actorOf(c), claim.resumed)
        : await issueGlobalInvoice(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return result.queued ? c.json(result.body, 202) : c.json(result.body, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/receipts/{id}',
      tags,
      operationId: 'getReceipt',
      summary: 'Get a receipt',
      request: { params: Params },
      responses: {
        200: jsonResponse(ReceiptSchema, 'The receipt'),
        400: errorResponse('Not a receipt id'),
        404: errorResponse('No such receipt in this tenant and environment'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await getReceipt(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/receipts/{id}/cancel',
      tags,
      operationId: 'cancelReceipt',
      summary: 'Cancel an open receipt (a returned sale)',
      description: 'It is then neither invoiced by its customer nor included in a global invoice.',
      middleware: [write] as const,
      request: { params: Params },
      responses: {
        200: jsonResponse(ReceiptSchema, 'Cancelled'),
        400: errorResponse('Not a receipt id'),
        404: errorResponse('No such receipt in this tenant and environment'),
        409: errorResponse('Already invoiced (cancel its CFDI instead) or cancelled'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
      },
    }),
    async (c) => c.json(await cancelReceipt(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/receipts/{id}/invoice',
      tags,
      operationId: 'invoiceReceipt',
      summary: 'Invoice a receipt to its customer (for integrators building their own portal)',
      description:
        "Issues a CFDI (Ingreso, PUE, the receipt's forma_pago and conceptos) to `receptor`, checked as POST /cfdis checks it, and marks the receipt " +
        'invoiced by it in the same transaction: a receipt is invoiced once. Refused (409) when it is cancelled, already invoiced, past expires_at, or ' +
        'included in a global invoice: a sale declared in the global invoice to the general public cannot be invoiced again on its own.',
      middleware: [write] as const,
      request: { params: Params, body: jsonBody(ReceiptInvoiceSchema, ReceiptInvoiceExamples) },
      responses: {
        ...issued,
        400: errorResponse(
          'Not a receipt id, the receptor fails a SAT rule (details name the field and rule), or email_to on a server without SMTP configured',
        ),
        404: errorResponse('No such receipt in this tenant and environment'),
        409: errorResponse('Already invoiced, in a global invoice, cancelled, or expired'),
        422: errorResponse('Rejected by the stamping provider'),
        503: errorResponse('No PAC for the live environment'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const result = claim?.resumed
        ? await resumeIssue(deps, actorOf(c), claim.resumed)
        : await invoiceReceipt(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), c.get('auditIn'), claim?.bind);
      return result.queued ? c.json(result.body, 202) : c.json(result.body, 201);
    },
  );
}
