import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonBody, jsonResponse } from '../../lib/schemas.ts';
import { CANCEL_SCENARIOS } from '../../pac/types.ts';
import { sandboxScenarioOf } from '../scenario.ts';
import { withdrawCfdi } from '../cfdis/withdrawal.ts';
import { getSatStatus } from './sat-status.ts';
import { cancelCfdi, getCancellation, resumeCancel, getCancellationDocument, type CancellationDeps } from './service.ts';
import { CancelExamples } from './examples.ts';
import { CancelBodySchema, CancelHeaders, CancellationSchema, CfdiRefParams, SatStatusSchema, WithdrawnSchema } from './schemas.ts';

const errors = errorResponses('invoices');

const tags = ['CFDIs'];

const xmlResponse = (description: string) => ({ description, content: { 'application/xml': { schema: z.string().openapi({ format: 'binary' }) } } });
const common = {
  400: errorResponse('Not a cfdi_ id or UUID'),
  ...errors.unauthenticated,
  404: errorResponse('No such CFDI in this tenant and environment, or nothing of that kind yet'),
};

export function mountCancellationRoutes(app: OpenAPIHono<BackendEnv>, deps: CancellationDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/cfdis/{id}/cancel',
      tags,
      operationId: 'cancelCfdi',
      summary: 'Cancel a stamped CFDI with SAT',
      description:
        "Signs a cancellation request with the tenant's active CSD (XML-DSig) and sends it through the PAC. The CFDI moves " +
        'vigente → cancelacion_pendiente → cancelado, or back to vigente when the receiver rejects or the request fails; each move is kept ' +
        '(GET /cfdis/{id}/cancellation) and `cfdi.cancelado` is emitted when it becomes cancelado; then the receipts it invoiced (a self-invoice, a ' +
        'global invoice) are open again, unless a replacement took them (POST /receipts/global-invoice with `replaces`). 200: cancelled now. 202: waiting for the ' +
        'receiver (needed for invoices over $1,000 MXN to a named receiver after the business day following stamping, except nómina, egresos, ' +
        'traslados, RIF, público en general and foreign receivers); it is polled every CANCELLATION_POLL_SECONDS. Refused (409): queued, failed, ' +
        'already cancelled or pending, a vigente CFDI relates to it (No cancelable), past the deadline (31 March / 30 April of the next year), no ' +
        'usable CSD. Send `Idempotency-Key` to make a retry safe; a retry arriving while the first request still runs waits up to 8 s for its ' +
        'answer, then answers from the cancellation it recorded, or 409 with error code `idempotency_key_in_use`. In test mode `X-Sandbox-Scenario` chooses the simulated receiver: ' +
        '`cancel_pending_accept` (accepted at the next poll), `cancel_rejected` (rejected at the next poll: back to vigente), `cancel_expired` ' +
        '(no answer: cancelled as Plazo vencido at the second poll); without it the sandbox cancels at once.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: {
        params: CfdiRefParams,
        body: jsonBody(CancelBodySchema, CancelExamples),
        headers: CancelHeaders,
      },
      responses: {
        200: jsonResponse(CancellationSchema, 'Cancelled'),
        202: jsonResponse(CancellationSchema, 'Requested; waiting for the receiver (poll GET /cfdis/{id}/cancellation or listen for cfdi.cancelado)'),
        400: errorResponse('Invalid motivo or folio_sustitucion (the details name the field)'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        404: errorResponse('No such CFDI in this tenant and environment'),
        409: errorResponse(
          'The CFDI cannot be cancelled now (see the message); Idempotency-Key reused with another body; or another request with this Idempotency-Key still running (error code `idempotency_key_in_use`, retry later)',
        ),
        422: errorResponse('Rejected by the PAC or SAT; the CFDI stays vigente'),
        503: errorResponse('The PAC is unavailable (the CFDI stays vigente; retry) or none is configured for live'),
      },
    }),
    async (c) => {
      const scenario = sandboxScenarioOf(c, CANCEL_SCENARIOS);
      const claim = c.get('idempotency');
      const result =
        (claim?.resumed && (await resumeCancel(deps, actorOf(c), claim.resumed))) ||
        (await cancelCfdi(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), { scenario, bindIdempotency: claim?.bind }));
      return result.pending ? c.json(result.body, 202) : c.json(result.body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/{id}/cancellation',
      tags,
      operationId: 'getCfdiCancellation',
      summary: 'The latest cancellation request of a CFDI',
      request: { params: CfdiRefParams },
      responses: { 200: jsonResponse(CancellationSchema, 'Status, motivo, times, links to the signed request and the acuse, status history'), ...common },
    }),
    async (c) => c.json(await getCancellation(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  for (const which of ['request', 'acuse'] as const) {
    app.openapi(
      createRoute({
        method: 'get',
        path: `/api/v1/cfdis/{id}/cancellation/${which}.xml`,
        tags,
        operationId: which === 'request' ? 'downloadCancellationRequest' : 'downloadCancellationAcuse',
        summary: which === 'request' ? 'The signed cancellation request, byte for byte' : "SAT's acknowledgement (acuse) of the cancellation, byte for byte",
        request: { params: CfdiRefParams },
        responses: { 200: xmlResponse(which === 'request' ? 'Cancelacion signed with the CSD' : 'The acuse'), ...common },
      }),
      async (c) => {
        const { uuid, xml } = await getCancellationDocument(deps, actorOf(c), c.req.valid('param').id, which);
        return c.body(new Uint8Array(xml), 200, {
          'Content-Type': 'application/xml',
          'Content-Disposition': `attachment; filename=${uuid}-${which === 'request' ? 'cancelacion' : 'acuse'}.xml`,
        });
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/cfdis/{id}/sat-status',
      tags,
      operationId: 'getCfdiSatStatus',
      summary: "SAT's status of a stamped CFDI",
      description:
        "SAT's consultation service (ConsultaCFDIService) for the CFDI's QR expression, in SAT's own words. In test mode the sandbox simulates " +
        'it from what it stamped and the cancellations it received. Read-only: it does not change the CFDI.',
      request: { params: CfdiRefParams },
      responses: {
        200: jsonResponse(SatStatusSchema, "SAT's answer"),
        ...common,
        503: errorResponse("SAT's service did not answer (retry), or no PAC configuration for live"),
      },
    }),
    async (c) => c.json(await getSatStatus(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/cfdis/{id}/withdraw',
      tags,
      operationId: 'withdrawCfdi',
      summary: 'Withdraw a queued CFDI before it is stamped',
      description:
        'A CFDI still en_cola (the PAC was unavailable) is not stamped any more: it becomes fallido with reason "withdrawn" and `cfdi.fallido` ' +
        'is emitted; its folio stays used. Refused (409) while a stamping attempt is running; if an attempt already in flight still stamps it, it ' +
        'is recorded as vigente (SAT has it) and must be cancelled. The receipts it invoiced (POST /receipts/{id}/invoice, the portal, a global ' +
        'invoice) are held until such an attempt has settled: 5 minutes later they are open again if it is still fallido, or stay with it if it was stamped.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { params: CfdiRefParams },
      responses: {
        200: jsonResponse(WithdrawnSchema, 'Withdrawn'),
        ...common,
        ...errors.adminOrOperator,
        409: errorResponse('Not queued, or a stamping attempt is running'),
      },
    }),
    async (c) => c.json(await withdrawCfdi(deps, actorOf(c), c.req.valid('param').id), 200),
  );
}
