import type { OpenAPIHono } from '@hono/zod-openapi';

type OpenApiApp = Pick<OpenAPIHono, 'getOpenAPI31Document'>;

/** The parts of an OpenAPI 3.1 document this file edits. */
interface Operation {
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, { description?: string; content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  security?: unknown[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
  tags?: Array<{ name: string; description: string }>;
}

const DESCRIPTION = `Multi-tenant CFDI 4.0 electronic-invoicing API.

Authenticate with \`Authorization: Bearer <token>\`: a JWT from POST /auth/login (scheme bearerJwt) or an API key
(\`sk_test_…\` sandbox, \`sk_live_…\` production; scheme apiKey). A JWT acts on test data unless the request sends
\`X-Environment: live\`. The tenant is always derived from the credential; a caller-sent \`x-tenant-id\` is ignored.

Errors: every non-2xx response has the body \`{ error: { code: "HTTP_<status>", message, details: [{ field, issue, rule? }] },
path, timestamp, request_id }\`. Invalid input is 422 on the authentication routes (/auth, /users, /api-keys, /tenants)
and 400 on the invoice routes; malformed JSON is invalid input too (422 / 400), its detail naming the line and column
where it broke; a body in another content type is 415 naming the one the route takes; bodies over 1 MiB are 413; a
known path with an unserved method is 405 with \`Allow\` (a path that needs a credential is 401 without one first).

Rate limits: per API key (per user for a JWT), per minute, by plan: sandbox 60, starter 100 (default), pro 300,
enterprise 1,000 or more; all of a tenant's keys and sessions together get twice its plan's limit. Calls without a
credential are limited per client address (an IPv4 address, or an IPv6 /64: the addresses of one /64 share its
budget); POST /auth/login and POST /auth/register have their own limits (see them). On SQLite the counters are kept in memory by the process; on PostgreSQL every instance spends from the same
counters, in windows of the database's clock, so the limits and headers hold across instances; a request is never
failed because those counters are slow: past 1 s its instance decides it on the last count it read plus its own
requests since. Every response carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\`; a 429 also \`Retry-After\`.

Roles: ADMIN (everything), OPERATOR (issues and cancels CFDIs, manages clients and series), VIEWER (reads only).
API keys act as ADMIN on their tenant's data but cannot manage users or API keys (that needs a user session).

Idempotency: send \`Idempotency-Key\` (1–255 visible ASCII characters) on any authenticated POST; the first response
(2xx or 4xx) is replayed for 24 h to the same credential (the same API key, or the same user with the same role) in the
same environment (header \`Idempotent-Replayed: true\`); another credential sending the same key makes its own request,
with its own checks. Stored answers are encrypted. The same key with another request is 409. A retry that arrives while
the first is still running, on this instance or another one behind the same load balancer, waits up to 8 s for its
answer; then it answers from what the first request created, if it has, and otherwise 409 with error code
\`idempotency_key_in_use\` (retry later: nothing was done twice). If the service stopped mid-request (a crash), a retry
of any POST that creates (an invoice, a cancellation, a receipt, its invoice, the global invoice, an email, a client, a
series, a webhook, an API key, a CSD, a user) answers from what the first request created, as it is now and with the
status the first would have had, instead of making a second one (after up to 6 s, the claim's lease, when the first
request's process died holding it). Only an API key's secret differs: it was kept hashed and its answer never
arrived, so the resumed answer gives the same key a new secret.

Sandbox: with a sk_test_ key (or a JWT in test) invoices are stamped in process with a real TFD 1.1 signed by the
sandbox certificate served at GET /api/v1/sandbox/sat-certificate; they have no fiscal validity.

Lists use cursor pagination: \`limit\` (1–100, default 20) and the opaque \`cursor\` from \`pagination.next_cursor\`.`;

/** One OpenAPI 3.1 document for the whole gateway: its own routes plus every backend's. */
export function buildOpenApiDocument(gateway: OpenApiApp, backends: OpenApiApp[], version: string) {
  const config = {
    openapi: '3.1.0',
    info: { title: 'CFDI 4.0 invoicing API', version, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearerJwt: [] }, { apiKey: [] }] as Array<Record<string, string[]>>,
  };
  const doc = gateway.getOpenAPI31Document(config) as Partial<Document>;
  doc.paths ??= {};
  doc.components ??= {};
  for (const backend of backends) {
    const part = backend.getOpenAPI31Document(config) as Partial<Document>;
    Object.assign(doc.paths, part.paths ?? {});
    for (const [kind, entries] of Object.entries(part.components ?? {})) {
      doc.components[kind] = { ...(doc.components[kind] ?? {}), ...entries };
    }
  }
  documentUnsupportedMediaType(doc as Document);
  documentCommonHeaders(doc as Document);
  doc.components.securitySchemes = {
    bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /api/v1/auth/login (24 h)' },
    apiKey: { type: 'http', scheme: 'bearer', description: 'API key: sk_test_… (sandbox) or sk_live_… (production)' },
  };
  doc.tags = [
    { name: 'System', description: 'Health, this document, its reference page (/docs) and the sandbox certificate' },
    { name: 'Auth', description: 'Register, log in, refresh, log out, who am I' },
    { name: 'Users', description: 'Users of the tenant and their roles' },
    { name: 'API keys', description: 'Persistent credentials for integrations' },
    { name: 'Tenant', description: 'The issuer profile' },
    { name: 'Audit log', description: 'Who did what, when: every write to the tenant (append-only, ADMIN)' },
    { name: 'CFDIs', description: 'Issue, seal, stamp, list, download and email CFDI 4.0 invoices' },
    {
      name: 'Retenciones',
      description:
        'Issue, seal, stamp (the sandbox in test mode, the live PACs through a queue in live mode), list and download CFDI de Retenciones e información de pagos 2.0, a document of its own',
    },
    {
      name: 'Webhooks',
      description:
        'Signed, retried event deliveries (cfdi.timbrado, cfdi.encolado, cfdi.fallido, cfdi.cancelado, cfdi.email_enviado, cfdi.email_fallido, cfdi.duplicate_stamp_cancelled, ' +
        'csd.por_vencer, csd.vencido, receipt.created, receipt.invoiced, receipt.cancelled, receipt.expired, retencion.timbrada, retencion.fallida, retencion.cancelada, ' +
        'retencion.duplicate_stamp_cancelled). cfdi.timbrado names receipt_id, the receipt a customer invoiced (else null); ' +
        'receipt.* carry receipt_id, folio, fecha, total, status and expires_at, and receipt.invoiced the cfdi_id, uuid and invoiced_by (self or global) too: ' +
        "it is sent when that CFDI is stamped, one per receipt a global invoice covers; receipt.expired once, within the hour after an open receipt's expires_at",
    },
    { name: 'CSDs', description: "Seal certificates (Certificado de Sello Digital) that sign the tenant's CFDIs" },
    { name: 'FIEL', description: "The tenant's e.firma (FIEL), one per tenant, kept encrypted for SAT's Descarga Masiva; every use audited" },
    { name: 'Clients', description: "The tenant's customers: receptor data checked with the SAT receptor rules, reused by receptor_id" },
    { name: 'Series', description: 'Invoice series and their consecutive folios' },
    {
      name: 'Catálogos SAT',
      description:
        "SAT's catalogs as shipped with the service: products and services, units, regimes, uses, payment forms and methods, currencies, postal codes, Nómina",
    },
    { name: 'Estadísticas', description: "The tenant's activity: CFDIs, CSDs, users, keys" },
    { name: 'PACs', description: 'The stamping providers (PAC) of each environment: failover order, circuit state, last error, latency' },
    {
      name: 'Portal',
      description: 'The self-invoicing portal (/portal/{tenant_id}): a public page in Spanish where a customer invoices a ticket, and the JSON it calls',
    },
  ];
  return doc;
}

/** Every operation with a body answers another content type with 415 naming the one it takes. */
function documentUnsupportedMediaType(doc: Document): void {
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      const types = Object.keys(op.requestBody?.content ?? {});
      if (types.length === 0 || op.responses['415']) continue;
      op.responses['415'] = {
        description: `Unsupported media type: send Content-Type: ${types.join(' or ')}`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
  }
}

/** Headers the gateway puts on answers, declared once and referenced from every response they can appear on. */
function documentCommonHeaders(doc: Document): void {
  const integer = { type: 'integer' };
  doc.components.headers = {
    'X-Request-Id': {
      required: true,
      description: "The id of this request (the caller's own X-Request-Id when it sent a valid one); also in the error envelope and the service log",
      schema: { type: 'string' },
    },
    'X-RateLimit-Limit': { description: 'Requests allowed in the current one-minute window', schema: integer },
    'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: integer },
    'X-RateLimit-Reset': { description: 'When the current window ends, in Unix seconds', schema: integer },
    'Retry-After': { description: 'Seconds to wait before trying again', schema: integer },
    'Idempotent-Replayed': {
      description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key',
      schema: { type: 'string', enum: ['true'] },
    },
  };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const ops of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      // The idempotency middleware serves every POST made with a credential, not only those that name the header.
      const idempotent = method === 'post' && !(Array.isArray(op.security) && op.security.length === 0);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        response.headers = {
          'X-Request-Id': ref('X-Request-Id'),
          'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
          'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
          'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
          ...(status === '429' || status === '503' ? { 'Retry-After': ref('Retry-After') } : {}),
          ...(idempotent && !status.startsWith('5') ? { 'Idempotent-Replayed': ref('Idempotent-Replayed') } : {}),
          ...response.headers,
        };
      }
    }
  }
}
