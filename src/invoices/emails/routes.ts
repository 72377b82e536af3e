import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonBody, jsonResponse, paginated } from '../../lib/schemas.ts';
import { CfdiRefParams } from '../cancellations/schemas.ts';
import { CfdiEmailExamples } from './examples.ts';
import { CfdiEmailListQuery, CfdiEmailRequestSchema, CfdiEmailSchema, EMAIL_RULES } from './schemas.ts';
import { emailCfdi, listCfdiEmails, resumeEmailCfdi, type EmailDeps } from './service.ts';

const tags = ['CFDIs'];
const errors = errorResponses('invoices');

export function mountEmailRoutes(app: OpenAPIHono<BackendEnv>, deps: EmailDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/cfdis/{id}/email',
      tags,
      operationId: 'emailCfdi',
      summary: 'Email a CFDI (XML and PDF) to its customer',
      description:
        'Queues one message to `to` (default: the email of the client the CFDI was issued to with receptor_id) through the SMTP server of ' +
        'SMTP_URL: Spanish text with your name and branding (logo and colour, as on the PDF), the serie and folio, total and folio fiscal (UUID), ' +
        "and `<uuid>.xml` and `<uuid>.pdf` attached, the same bytes as GET /cfdis/{uuid}/xml and /pdf. A cancelled CFDI goes with SAT's " +
        'acuse (`<uuid>-acuse.xml`); one still queued for stamping is sent once stamped. Sending runs on the job queue: an SMTP server that ' +
        'answers 4xx or cannot be reached is tried again with backoff (about two hours), one that answers 5xx ends it as `failed` with its ' +
        'answer. GET /cfdis/{id}/emails shows each sending; webhook events `cfdi.email_enviado` and `cfdi.email_fallido` report the end. ' +
        "Each tenant is its own lane of the email workers (at most 2 of their 8 connections), so one tenant's backlog never holds another's. " +
        'The sender is SMTP_FROM\'s address, shown as "<your name> vía <the operator>", your name without quotes, <, >, @, commas or control ' +
        'characters; replies go to your reply_to. ' +
        EMAIL_RULES +
        " An operator serving the public should publish SPF, DKIM and DMARC for SMTP_FROM's domain (its server signing with DKIM) and keep " +
        "EMAIL_DAILY_LIMIT low for free sign-ups: every tenant's email goes out under that address and its reputation.",
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { params: CfdiRefParams, body: jsonBody(CfdiEmailRequestSchema, CfdiEmailExamples) },
      responses: {
        202: jsonResponse(CfdiEmailSchema, 'Queued: the delivery record (poll GET /cfdis/{id}/emails, or listen for cfdi.email_enviado)'),
        400: errorResponse(
          "An invalid address, more than 10, no recipient at all, in test mode an address that is not one of your users', or this server has no " +
            'SMTP configured (SMTP_URL): details name `to`',
        ),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        404: errorResponse('No such CFDI in this tenant and environment'),
        409: errorResponse('The CFDI failed to stamp (fallido): there is nothing to send'),
        429: errorResponse('An email budget is used up (email_daily or cfdi_daily, named with its limit and reset); Retry-After says when it resets'),
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const sending = claim?.resumed
        ? await resumeEmailCfdi(deps, actorOf(c), claim.resumed)
        : await emailCfdi(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), claim?.bind);
      return c.json(sending, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/{id}/emails',
      tags,
      operationId: 'listCfdiEmails',
      summary: 'The emails of a CFDI, newest first',
      description:
        "Each sending with its status (queued, sent, failed), recipients, attempts, times and the SMTP server's last answer. A server without " +
        'SMTP configured answers it too: the sendings made while it had one, none on a server that never had.',
      request: { params: CfdiRefParams, query: CfdiEmailListQuery },
      responses: {
        200: jsonResponse(paginated(CfdiEmailSchema), 'A page of sendings'),
        400: errorResponse('Not a cfdi_ id or UUID, or an invalid query'),
        ...errors.unauthenticated,
        404: errorResponse('No such CFDI in this tenant and environment'),
      },
    }),
    async (c) => c.json(await listCfdiEmails(deps, actorOf(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
}
