import { RetencionExamples } from '../../src/invoices/retenciones/examples.ts';
import { csdFiles, csdForm, ICV, ingreso } from '../helpers.ts';
import { json, post } from './server.ts';

/**
 * Every POST of the OpenAPI document that creates something, as tests/process/idempotency-crash.test.ts sends it with
 * an Idempotency-Key, kills the server before it answers and sends it again. tests/conventions.test.ts fails when the
 * document has a create that is neither here nor in NOT_RESUMABLE: adding a create means binding it and listing it.
 */

/** What the set-up made, without Idempotency-Key, for the creates that act on something. */
export interface CreateContext {
  base: string;
  /** The ADMIN's access token (users and API keys need a user session). */
  token: string;
  /** The tenant's sk_test_ key. */
  key: string;
  /** A stamped CFDI to email, and one to cancel. */
  toEmail: string;
  toCancel: string;
  /** A stamped retención to email. */
  retencionToEmail: string;
  /** An open receipt to self-invoice, and the day of the open receipts the global invoice takes. */
  receipt: string;
  day: string;
  /** The receipts the set-up made: the one created under test is the other one. */
  setupReceipts: string[];
}

export interface CreateRoute {
  /** `POST <path>` as the OpenAPI document names it. */
  route: string;
  send(ctx: CreateContext, headers: Record<string, string>): Promise<Response>;
  /** The statuses the retry may answer with (a stamp may be queued: 202). */
  statuses: number[];
  /** The ids of what exists of this kind, made by this create (the test expects exactly one: the retry's). */
  made(ctx: CreateContext): Promise<string[]>;
  /** The id in the answer (default `id`). */
  idOf?: (body: any) => string;
}

const get = async (ctx: CreateContext, path: string, token = ctx.key): Promise<any[]> =>
  ((await (await fetch(`${ctx.base}${path}`, json('GET', undefined, token))).json()) as { data: any[] }).data;

const cfdisWith = async (ctx: CreateContext, match: (metadata: Record<string, string>) => boolean) =>
  (await get(ctx, '/cfdis?limit=100')).filter((c) => match(c.metadata ?? {})).map((c) => c.id as string);

const RECEIPT = {
  forma_pago: '01',
  conceptos: [
    {
      clave_prod_serv: '50192100',
      cantidad: '1',
      clave_unidad: 'H87',
      descripcion: 'Botana 45 g',
      valor_unitario: '20.00',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
};
export const receiptBody = () => RECEIPT;

/** The tenant's CSD as one multipart body: a retry sends the same bytes (a new FormData would draw a new boundary). */
const csdUpload = (async () => {
  const encoded = new Response(csdForm(csdFiles('EKU9003173C9_CSD', 'EKU9003173C9')));
  const type = encoded.headers.get('content-type')!;
  return { body: new Uint8Array(await encoded.arrayBuffer()), type };
})();

/** In the order the crash test sends them: the CSD first (the invoices need it), the global invoice after the self-invoiced receipt. */
export const CREATES: CreateRoute[] = [
  {
    route: 'POST /api/v1/csds',
    send: async (ctx, headers) => {
      const { body, type } = await csdUpload;
      return fetch(`${ctx.base}/csds`, { method: 'POST', headers: { authorization: `Bearer ${ctx.key}`, 'content-type': type, ...headers }, body });
    },
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/csds')).map((c) => c.id),
  },
  {
    route: 'POST /api/v1/clients',
    send: (ctx, headers) => post(ctx.base, '/clients', { ...ICV, email: 'crash@example.com' }, ctx.key, headers),
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/clients?limit=100')).map((c) => c.id),
  },
  {
    route: 'POST /api/v1/series',
    send: (ctx, headers) => post(ctx.base, '/series', { serie: 'CRASH' }, ctx.key, headers),
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/series?limit=100')).filter((s) => s.serie === 'CRASH').map((s) => s.id),
  },
  {
    route: 'POST /api/v1/webhooks',
    send: (ctx, headers) => post(ctx.base, '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['cfdi.timbrado'] }, ctx.key, headers),
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/webhooks?limit=100')).map((w) => w.id),
  },
  {
    route: 'POST /api/v1/api-keys',
    send: (ctx, headers) => post(ctx.base, '/api-keys', { name: 'crash', environment: 'test' }, ctx.token, headers),
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/api-keys?limit=100', ctx.token)).filter((k) => k.name === 'crash').map((k) => k.id),
  },
  {
    route: 'POST /api/v1/users',
    send: (ctx, headers) =>
      post(ctx.base, '/users', { email: 'crash-user@example.com', password: 'another long passphrase', nombre: 'Luis', role: 'OPERATOR' }, ctx.token, headers),
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/users?limit=100', ctx.token)).filter((u) => u.email === 'crash-user@example.com').map((u) => u.id),
  },
  {
    route: 'POST /api/v1/cfdis',
    send: (ctx, headers) => post(ctx.base, '/cfdis', ingreso({ metadata: { crash: 'issue' } }), ctx.key, headers),
    statuses: [201],
    made: (ctx) => cfdisWith(ctx, (m) => m.crash === 'issue'),
  },
  {
    route: 'POST /api/v1/retenciones',
    send: (ctx, headers) => post(ctx.base, '/retenciones', RetencionExamples.retencion_arrendamiento.value, ctx.key, headers),
    statuses: [201],
    // The one set up to be emailed is not this create's.
    made: async (ctx) => (await get(ctx, '/retenciones?limit=100')).map((r) => r.id).filter((id) => id !== ctx.retencionToEmail),
  },
  {
    route: 'POST /api/v1/cfdis/{id}/cancel',
    send: (ctx, headers) => post(ctx.base, `/cfdis/${ctx.toCancel}/cancel`, { motivo: '02' }, ctx.key, headers),
    statuses: [200],
    made: async (ctx) => {
      const res = await fetch(`${ctx.base}/cfdis/${ctx.toCancel}/cancellation`, json('GET', undefined, ctx.key));
      return res.status === 200 ? [((await res.json()) as { id: string }).id] : [];
    },
  },
  {
    route: 'POST /api/v1/cfdis/{id}/email',
    send: (ctx, headers) => post(ctx.base, `/cfdis/${ctx.toEmail}/email`, { to: ['cliente@example.com'] }, ctx.key, headers),
    statuses: [202],
    made: async (ctx) => (await get(ctx, `/cfdis/${ctx.toEmail}/emails`)).map((e) => e.id),
  },
  {
    route: 'POST /api/v1/retenciones/{id}/email',
    send: (ctx, headers) => post(ctx.base, `/retenciones/${ctx.retencionToEmail}/email`, { to: ['receptor@example.com'] }, ctx.key, headers),
    statuses: [202],
    made: async (ctx) => (await get(ctx, `/retenciones/${ctx.retencionToEmail}/emails`)).map((e) => e.id),
  },
  {
    route: 'POST /api/v1/receipts/{id}/invoice',
    send: (ctx, headers) => post(ctx.base, `/receipts/${ctx.receipt}/invoice`, { receptor: ICV }, ctx.key, headers),
    statuses: [201],
    made: (ctx) => cfdisWith(ctx, (m) => m.receipt_id === ctx.receipt),
  },
  {
    route: 'POST /api/v1/receipts/global-invoice',
    send: (ctx, headers) => post(ctx.base, '/receipts/global-invoice', { periodicidad: '01', desde: ctx.day, hasta: ctx.day }, ctx.key, headers),
    statuses: [201],
    made: (ctx) => cfdisWith(ctx, (m) => m.global_invoice !== undefined),
  },
  {
    route: 'POST /api/v1/receipts',
    send: (ctx, headers) => post(ctx.base, '/receipts', RECEIPT, ctx.key, headers),
    statuses: [201],
    made: async (ctx) => (await get(ctx, '/receipts?limit=100')).filter((r) => !ctx.setupReceipts.includes(r.id)).map((r) => r.id),
  },
  {
    route: 'POST /api/v1/sat-downloads',
    // The set-up stored the tenant's FIEL; test mode: the simulator answers, never SAT.
    send: (ctx, headers) =>
      post(ctx.base, '/sat-downloads', { direction: 'issued', kind: 'metadata', desde: '2025-03-01', hasta: '2025-03-31' }, ctx.key, headers),
    statuses: [202],
    made: async (ctx) => (await get(ctx, '/sat-downloads?limit=100')).map((d) => d.id),
    idOf: (body) => body.data?.[0]?.id,
  },
];

/** Creates no Idempotency-Key applies to, with why a retry cannot make a second one. */
export const NOT_RESUMABLE: Record<string, string> = {
  'POST /api/v1/auth/register': 'no credential, so no Idempotency-Key: a retry finds the email taken (409)',
  'POST /portal/{tenant_id}/ticket/invoice': 'no credential, so no Idempotency-Key: the receipt is marked invoiced in the invoice transaction, a retry is 409',
};
