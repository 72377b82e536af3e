import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { DbOrTx } from '../db/client.ts';
import type { GatewayEnv } from '../gateway/gateway.ts';
import type { RateLimits } from '../gateway/rate-limit.ts';
import { brandingOf } from '../invoices/cfdis/reads.ts';
import type { PortalReceipt } from '../invoices/receipts/service.ts';
import { recordAuditEntry } from '../lib/audit.ts';
import { respondError, zodDetails } from '../lib/errors.ts';
import type { IdentityDirectory } from '../lib/identity.ts';
import { errorResponse, errorResponses, jsonBody, jsonResponse } from '../lib/schemas.ts';
import { invalidInput } from '../lib/service-error.ts';
import { PORTAL_INVOICE_EXAMPLES } from './examples.ts';
import { notFoundPage, PORTAL_ASSETS, portalPage } from './page.ts';
import { DocumentQuery, PageQuery, PortalInvoiceRequestSchema, PortalInvoiceSchema, PortalTicketSchema, TenantParam, TicketQuery } from './schemas.ts';
import { DOWNLOADS_PER_KEY_PER_HOUR, invoiceTicket, lookupTicket, ticketDocument, type PortalDeps } from './service.ts';

const errors = errorResponses('gateway');

/** The portal's request body is a key and a receptor: anything near this size is not one. */
const MAX_BODY_BYTES = 16 * 1024;

const PORTAL_LIMIT_TEXT =
  'No credential. Rate-limited per client address (the portal has its own per-minute budget, apart from the other calls ' +
  'without a credential): 429 with Retry-After past it. A ticket key has 130 random bits, so guessing one within that budget is out of reach; ' +
  "a key that does not exist, one of another tenant and an unknown tenant all answer the same 404 'Ticket no encontrado'.";

/** The portal's input errors: 400 in the envelope, naming the field, in Spanish. */
const hook = (result: { success: boolean; error?: z.ZodError; target?: string }): undefined => {
  if (!result.success && result.error) {
    const where = result.target === 'json' ? undefined : result.target === 'param' ? undefined : result.target;
    throw invalidInput('Revisa los datos del formulario', zodDetails(result.error, where));
  }
  return undefined;
};

const wantsHtml = (c: Context) => c.req.header('accept')?.includes('text/html') ?? false;
const NO_STORE = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

/**
 * The self-invoicing portal: a page per tenant where a customer turns a ticket (receipt) into a CFDI to their name,
 * and the JSON endpoints it calls. Public, in Spanish, served whole by this process (no CDN), like /docs.
 */
export function mountPortal(
  app: OpenAPIHono<GatewayEnv>,
  deps: PortalDeps & { identity: IdentityDirectory; limit: MiddlewareHandler<GatewayEnv>; anonymous: MiddlewareHandler<GatewayEnv>; rateLimits: RateLimits },
) {
  // Counted per ticket key across every address (and, on PostgreSQL, every instance), in hours.
  const downloads = deps.rateLimits('portal-downloads', 3_600_000);
  app.use('/portal/assets/*', deps.anonymous);
  // Static files, not API operations: left out of the OpenAPI document (as /docs/assets).
  app.get('/portal/assets/*', (c) => {
    const file = PORTAL_ASSETS.get(c.req.path.slice('/portal/assets/'.length));
    if (!file) return respondError(c, 404, 'Route not found', [{ field: 'path', issue: `no route ${c.req.path}` }]);
    return new Response(file.body, {
      headers: { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
    });
  });
  app.use('/portal/:tenant_id', deps.limit);
  // The assets above are counted as any anonymous call, not against the portal's budget.
  app.use('/portal/:tenant_id/*', (c, next) => (c.req.param('tenant_id') === 'assets' ? next() : deps.limit(c, next)));

  app.openapi(
    createRoute({
      method: 'get',
      path: '/portal/{tenant_id}',
      operationId: 'getPortalPage',
      tags: ['Portal'],
      summary: "The tenant's self-invoicing page (HTML, Spanish)",
      description:
        'Where a customer invoices a ticket: the ticket key (prefilled from `?clave=`, the link or QR printed on it), RFC, name, postal code, ' +
        "régimen fiscal and uso CFDI (SAT's catalogs), and an email when the service has SMTP; then the UUID and the PDF and XML to download. " +
        "With the tenant's name, logo and accent colour; every asset is served by this server, so it works offline. " +
        PORTAL_LIMIT_TEXT,
      security: [],
      request: { params: TenantParam, query: PageQuery },
      responses: {
        200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } },
        404: {
          description: 'No such tenant: an HTML page for a browser (Accept: text/html), else the error envelope',
          content: { 'text/html': { schema: z.string() }, 'application/json': errorResponse('').content['application/json'] },
        },
        ...errors.invalidQuery,
        ...errors.tooManyFromAddress,
      },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid('param');
      const tenant = await deps.identity.tenantById(tenant_id);
      if (!tenant) {
        if (!wantsHtml(c)) return respondError(c, 404, 'Portal no encontrado', [{ field: 'tenant_id', issue: 'no hay un portal de facturación aquí' }]);
        const page = notFoundPage();
        return c.html(page.html, 404, { ...NO_STORE, 'Content-Security-Policy': page.csp });
      }
      const brand = await brandingOf(deps.db, tenant.id);
      const clave = c.req.valid('query').clave?.slice(0, 64);
      const page = portalPage({
        tenantId: tenant.id,
        nombre: tenant.nombre,
        accentColor: brand.accentColor,
        hasLogo: !!brand.logo,
        email: !!deps.mailer,
        clave,
      });
      return c.html(page.html, 200, { ...NO_STORE, 'Content-Security-Policy': page.csp });
    },
    hook,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/portal/{tenant_id}/logo',
      operationId: 'getPortalLogo',
      tags: ['Portal'],
      summary: "The tenant's logo, as the portal page shows it",
      description: PORTAL_LIMIT_TEXT,
      security: [],
      request: { params: TenantParam },
      responses: {
        200: { description: 'The logo', content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) }, 'image/jpeg': { schema: z.string() } } },
        404: errorResponse('No such tenant, or it has no logo'),
        ...errors.invalidInput,
        ...errors.tooManyFromAddress,
      },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid('param');
      const tenant = await deps.identity.tenantById(tenant_id);
      const logo = tenant ? (await brandingOf(deps.db, tenant.id)).logo : undefined;
      if (!logo) return respondError(c, 404, 'Logo no encontrado', [{ field: 'tenant_id', issue: 'no hay logo aquí' }]);
      return c.body(new Uint8Array(logo.bytes), 200, { 'Content-Type': logo.type, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    },
    hook,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/portal/{tenant_id}/ticket',
      operationId: 'getPortalTicket',
      tags: ['Portal'],
      summary: 'Look up a ticket by its key',
      description: 'Its folio, date, total and concept lines, and whether it can still be invoiced (if not, why, in Spanish). ' + PORTAL_LIMIT_TEXT,
      security: [],
      request: { params: TenantParam, query: TicketQuery },
      responses: {
        200: jsonResponse(PortalTicketSchema, 'The ticket'),
        404: errorResponse('Ticket no encontrado: no such key in this tenant (or no such tenant)'),
        ...errors.invalidQuery,
        ...errors.tooManyFromAddress,
      },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid('param');
      return c.json(await lookupTicket(deps, tenant_id, c.req.valid('query').clave), 200, NO_STORE);
    },
    hook,
  );

  app.use(
    '/portal/:tenant_id/ticket/invoice',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => respondError(c, 413, 'Request body too large', [{ field: 'body', issue: `must be at most ${MAX_BODY_BYTES} bytes` }]),
    }),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/portal/{tenant_id}/ticket/invoice',
      operationId: 'invoicePortalTicket',
      tags: ['Portal'],
      summary: 'Invoice a ticket to the customer (stamps its CFDI)',
      description:
        "Issues the ticket's CFDI to `receptor`, as POST /api/v1/receipts/{id}/invoice does. SAT rule problems answer 400 with one detail per " +
        'field (`receptor.rfc`, `receptor.uso_cfdi`, …) in Spanish, each with its rule code (CFDI40143–CFDI40161). A ticket already invoiced, ' +
        'cancelled, expired or included in the global invoice answers 409 saying which. `email` is sent only when the service has SMTP configured; ' +
        "without it, or for a test-mode ticket (whose email goes only to the operator's EMAIL_TEST_CAPTURE mailbox, when set), the CFDI is " +
        "still issued and `email.status` is `unavailable`. The tenant's email budgets apply (429 naming the budget). " +
        PORTAL_LIMIT_TEXT,
      security: [],
      request: { params: TenantParam, body: jsonBody(PortalInvoiceRequestSchema, PORTAL_INVOICE_EXAMPLES) },
      responses: {
        201: jsonResponse(PortalInvoiceSchema, 'Issued (uuid null while it waits in the stamping queue)'),
        404: errorResponse('Ticket no encontrado'),
        409: errorResponse('The ticket cannot be invoiced: already invoiced, cancelled, expired, or in the global invoice'),
        413: errorResponse('Body too large'),
        503: errorResponse('Stamping is unavailable'),
        ...errors.invalidInput,
        ...errors.tooManyFromAddress,
      },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid('param');
      // The tenant's log shows who stamped the CFDI: the portal, for the receipt named. In the invoice's transaction
      // when it is stamped there; after the answer is known when it was queued.
      const audit = (db: DbOrTx, receipt: PortalReceipt) =>
        recordAuditEntry(db, {
          tenantId: receipt.tenantId,
          environment: receipt.environment,
          actorType: 'api_key',
          actorId: 'portal',
          action: 'invoicePortalTicket',
          method: 'POST',
          path: c.req.path,
          status: 201,
          resourceType: 'receipts',
          resourceId: receipt.id,
          requestId: c.get('requestId'),
          createdAt: deps.now().toISOString(),
        });
      let recorded = false;
      const { receipt, ...issued } = await invoiceTicket(deps, tenant_id, c.req.valid('json'), async (tx, receipt) => {
        await audit(tx, receipt);
        recorded = true;
      });
      if (!recorded) {
        try {
          await audit(deps.db, receipt);
        } catch {
          // The CFDI is stamped and answered as such: a retry would be refused as invoiced. The request log still has it.
        }
      }
      return c.json(issued, 201, NO_STORE);
    },
    hook,
  );

  for (const format of ['pdf', 'xml'] as const) {
    app.openapi(
      createRoute({
        method: 'get',
        path: `/portal/{tenant_id}/ticket/${format}`,
        operationId: format === 'pdf' ? 'downloadPortalTicketPdf' : 'downloadPortalTicketXml',
        tags: ['Portal'],
        summary: `The ${format.toUpperCase()} of the CFDI the ticket was invoiced with here`,
        description:
          'Only the CFDI its customer issued through the portal (never a global invoice), and only with the RFC it was issued to: a key alone, ' +
          "as found on a discarded ticket, does not hand out the customer's fiscal data. " +
          `A ticket key has ${DOWNLOADS_PER_KEY_PER_HOUR} downloads an hour (PDF and XML together, every attempt counted, from whatever address): ` +
          'past them 429 naming the limit, with Retry-After. ' +
          (format === 'pdf'
            ? 'The PDF is the one GET /api/v1/cfdis/{uuid}/pdf serves, from the same cache (rendered once per state of the CFDI and its ' +
              "tenant's branding); a render runs on the portal's own share of the PDF renderers, never a tenant's: past it, 429 with Retry-After. "
            : '') +
          PORTAL_LIMIT_TEXT,
        security: [],
        request: { params: TenantParam, query: DocumentQuery },
        responses: {
          200: {
            description: format === 'pdf' ? 'The PDF (as GET /api/v1/cfdis/{uuid}/pdf)' : 'The stamped XML (as GET /api/v1/cfdis/{uuid}/xml)',
            content: { [format === 'pdf' ? 'application/pdf' : 'application/xml']: { schema: z.string().openapi({ format: 'binary' }) } },
          },
          404: errorResponse('No such ticket, not invoiced here, another RFC, or not stamped yet'),
          429: errorResponse(
            `Too many requests from this address, or this ticket key's ${DOWNLOADS_PER_KEY_PER_HOUR} downloads this hour are spent` +
              (format === 'pdf' ? ", or the portal's share of the PDF renderers is full" : '') +
              ': retry after Retry-After seconds',
          ),
          ...(format === 'pdf' ? { 503: errorResponse('Every PDF renderer is busy and the waiting room is full: retry after Retry-After seconds') } : {}),
          ...errors.invalidQuery,
        },
      }),
      async (c) => {
        const { tenant_id } = c.req.valid('param');
        const { clave, rfc } = c.req.valid('query');
        const doc = await ticketDocument(deps, downloads, tenant_id, clave, rfc, format);
        return c.body(new Uint8Array(doc.bytes), 200, {
          ...NO_STORE,
          'Content-Type': doc.type,
          'Content-Disposition': `attachment; filename=${doc.uuid}.${format}`,
        });
      },
      hook,
    );
  }
}
