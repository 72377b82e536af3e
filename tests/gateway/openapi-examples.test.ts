import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { EGRESO_RELATED_UUID } from '../../src/invoices/cfdis/examples.ts';
import { createTestApp, csdFiles, issuer, smtpSink } from '../helpers.ts';
import { openReceipt } from '../portal/receipts.ts';
import { zipFiles } from '../sat-mock/zip.ts';

/**
 * Every request body of the served OpenAPI document has examples, and each one works: sent to its route by a real
 * tenant with a CSD, it answers 2xx (a CFDI also passes POST /cfdis/validate). What an example cannot carry (a path
 * id, a live refresh token, the UUID of an invoice of yours, the bytes of a file) is created first and put in.
 */
const sink = await smtpSink(); // the email examples are sent through it
afterAll(() => sink.close());
const t = await createTestApp({ webhookAllowPrivate: true, smtp: { ...sink.smtp, testCapture: 'captura@example.com' } }); // no DNS here to check the examples' example.com hosts; the email examples' addresses are taken in test mode
const LOGO = readFileSync(new URL('../fixtures/branding/logo.png', import.meta.url).pathname);

interface Example {
  summary: string;
  value: any;
}
interface Sent {
  path?: string;
  token?: string;
  body?: unknown;
  form?: FormData;
  /** A body in another content type (a received CFDI's XML, a ZIP), sent as is. */
  raw?: { type: string; bytes: Uint8Array | string };
}

async function request(method: string, path: string, sent: Sent) {
  const headers: Record<string, string> = {};
  if (sent.token) headers.authorization = `Bearer ${sent.token}`;
  if (!sent.form) headers['content-type'] = sent.raw?.type ?? 'application/json';
  const body = sent.form ?? (sent.raw ? (typeof sent.raw.bytes === 'string' ? sent.raw.bytes : new Uint8Array(sent.raw.bytes)) : JSON.stringify(sent.body));
  const res = await t.app.request(sent.path ?? path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

/** A tenant like the sandbox's (EKU9003173C9), its CSD uploaded, a plan with room for every request. */
async function sandboxLikeIssuer() {
  const reg = await issuer(t, { plan: 'enterprise', requestsPerMinute: 1_000_000 });
  const files = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
  const form = new FormData();
  form.append('cer', new Blob([new Uint8Array(files.cer)]), 'EKU9003173C9.cer');
  form.append('key', new Blob([new Uint8Array(files.key)]), 'EKU9003173C9.key');
  form.append('password', files.password);
  const csd = await request('POST', '/api/v1/csds', { token: reg.token, form });
  if (csd.status !== 201) throw new Error(`CSD upload failed: ${csd.status} ${csd.text}`);
  return reg;
}

const created = async (method: string, path: string, token: string, body: unknown): Promise<any> => {
  const res = await request(method, `/api/v1${path}`, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.json;
};

describe('OpenAPI request examples', () => {
  test('every operation with a body has examples, and every example works as sent', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json;
    const admin = await sandboxLikeIssuer();
    const token = admin.token;
    const ingreso = (): Promise<any> =>
      created('POST', '/cfdis', token, doc.paths['/api/v1/cfdis'].post.requestBody.content['application/json'].examples.ingreso.value);
    const withEgresoRelated = async (value: any) => JSON.parse(JSON.stringify(value).replaceAll(EGRESO_RELATED_UUID, (await ingreso()).uuid));
    const login = async (value: { email: string; password: string }) => {
      const res = await request('POST', '/api/v1/auth/login', { body: value });
      if (res.status !== 200) {
        // The register example's user: registered here when its own operation has not run yet.
        await request('POST', '/api/v1/auth/register', {
          body: doc.paths['/api/v1/auth/register'].post.requestBody.content['application/json'].examples.tenant.value,
        });
        return (await request('POST', '/api/v1/auth/login', { body: value })).json;
      }
      return res.json;
    };
    const loginExample = () => doc.paths['/api/v1/auth/login'].post.requestBody.content['application/json'].examples.login.value;

    /** What each operation needs beyond its example; an operation with a path parameter must be listed. */
    const prepare: Record<string, (value: any, path: string, type: string) => Promise<Sent>> = {
      registerTenant: async (value) => ({ body: value }),
      login: async (value) => (await login(value), { body: value }),
      refreshSession: async () => ({ body: { refresh_token: (await login(loginExample())).refresh_token } }),
      logout: async () => ({ body: { refresh_token: (await login(loginExample())).refresh_token } }),
      updateUser: async (value, path) => {
        const user = await created('POST', '/users', token, {
          email: `u-${crypto.randomUUID()}@example.com`,
          password: 'a-long-password-1',
          nombre: 'Otro Usuario',
          role: 'OPERATOR',
        });
        return { path: path.replace('{id}', user.id), body: value };
      },
      changePassword: async (value, path) => {
        // A user whose password is the example's current_password changes their own.
        const email = `u-${crypto.randomUUID()}@example.com`;
        const user = await created('POST', '/users', token, { email, password: value.current_password, nombre: 'Otro Usuario', role: 'OPERATOR' });
        const own = (await request('POST', '/api/v1/auth/login', { body: { email, password: value.current_password } })).json.access_token;
        return { path: path.replace('{id}', user.id), token: own, body: value };
      },
      uploadTenantLogo: async (value) => {
        expect(Object.keys(value)).toEqual(['logo']);
        const form = new FormData();
        form.append('logo', new File([new Uint8Array(LOGO)], 'logo.png', { type: 'image/png' }));
        return { form };
      },
      uploadCsd: async (value) => {
        // A tenant without a CSD yet (a certificate is uploaded once per environment), SAT's test files.
        const fresh = await issuer(t);
        const files = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
        expect(Object.keys(value)).toEqual(['cer', 'key', 'password']);
        expect(value.password).toBe(files.password);
        const form = new FormData();
        form.append('cer', new Blob([new Uint8Array(files.cer)]), 'EKU9003173C9.cer');
        form.append('key', new Blob([new Uint8Array(files.key)]), 'EKU9003173C9.key');
        form.append('password', value.password);
        return { form, token: fresh.token };
      },
      putFiel: async (value) => {
        // SAT's test FIEL (e.firma) of EKU9003173C9: the files the example names, its password.
        const files = csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9');
        expect(Object.keys(value)).toEqual(['cer', 'key', 'password']);
        expect(value.password).toBe(files.password);
        const form = new FormData();
        form.append('cer', new Blob([new Uint8Array(files.cer)]), 'EKU9003173C9.cer');
        form.append('key', new Blob([new Uint8Array(files.key)]), 'EKU9003173C9.key');
        form.append('password', value.password);
        return { form };
      },
      uploadLista69b: async (value) => {
        // The CSV example is sent as the body; the multipart one carries the same CSV as its file.
        const csv = doc.paths['/api/v1/sat-lists/69b'].post.requestBody.content['text/csv'].examples.csv.value;
        if (typeof value === 'string') return { raw: { type: 'text/csv', bytes: value } };
        expect(Object.keys(value)).toEqual(['file']);
        const form = new FormData();
        form.append('file', new Blob([csv]), 'Listado_Completo_69-B.csv');
        return { form };
      },
      uploadReceivedCfdis: async (value, _path, type) => {
        // SAT's stamped sample in place of the bytes each example names: as the XML, in a ZIP, or as a multipart file.
        const sample = readFileSync(new URL('../fixtures/sat/samples/cfdi40-ingreso-iva-sandbox-EKU.xml', import.meta.url).pathname);
        if (type === 'application/xml') return { raw: { type, bytes: sample.toString('utf8') } };
        if (type === 'application/zip') return { raw: { type, bytes: zipFiles([{ name: 'recibida.xml', data: sample }]) } };
        const form = new FormData();
        for (const field of Object.keys(value)) form.append(field, new File([new Uint8Array(sample)], 'recibida.xml'));
        return { form };
      },
      updateClient: async (value, path) => {
        const client = await created('POST', '/clients', token, {
          rfc: 'URE180429TM6',
          nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
          regimen_fiscal: '601',
          domicilio_fiscal: '86991',
          uso_cfdi: 'G03',
        });
        return { path: path.replace('{id}', client.id), body: value };
      },
      updateSeries: async (value, path) => {
        const series = await created('POST', '/series', token, { serie: `S${Math.floor(Math.random() * 1e6)}` });
        return { path: path.replace('{id}', series.id), body: value };
      },
      issueCfdi: async (value) => ({ body: await withEgresoRelated(value) }),
      validateCfdi: async (value) => ({ body: await withEgresoRelated(value) }),
      cancelCfdi: async (value, path) => ({ path: path.replace('{id}', (await ingreso()).id), body: value }),
      emailCfdi: async (value, path) => {
        // Issued with receptor_id to a client with an email: the example without `to` sends to it.
        const { receptor, ...invoice } = doc.paths['/api/v1/cfdis'].post.requestBody.content['application/json'].examples.ingreso.value;
        const client = await created('POST', '/clients', token, { ...receptor, email: 'cuentas-por-pagar@example.com' });
        const cfdi = await created('POST', '/cfdis', token, { ...invoice, receptor_id: client.id });
        return { path: path.replace('{id}', cfdi.id), body: value };
      },
      cancelRetencion: async (value, path) => {
        const retencion = () => doc.paths['/api/v1/retenciones'].post.requestBody.content['application/json'].examples.retencion_arrendamiento.value;
        const cancelled = await created('POST', '/retenciones', token, retencion());
        if (value.motivo !== '01') return { path: path.replace('{id}', cancelled.id), body: value };
        // Motivo 01 names its replacement: one issued relating to it with 04.
        const replacement = await created('POST', '/retenciones', token, {
          ...retencion(),
          cfdi_reten_relacionados: { tipo_relacion: '04', uuid: cancelled.uuid },
        });
        return { path: path.replace('{id}', cancelled.id), body: { ...value, folio_sustitucion: replacement.uuid } };
      },
      emailRetencion: async (value, path) => {
        const example = doc.paths['/api/v1/retenciones'].post.requestBody.content['application/json'].examples.retencion_arrendamiento.value;
        return { path: path.replace('{id}', (await created('POST', '/retenciones', token, example)).id), body: value };
      },
      invoiceReceipt: async (value, path) => {
        const ticket = doc.paths['/api/v1/receipts'].post.requestBody.content['application/json'].examples.ticket.value;
        return { path: path.replace('{id}', (await created('POST', '/receipts', token, ticket)).id), body: value };
      },
      issueGlobalInvoice: async (value) => {
        // The examples name a period (November 2026, and its 24th): the clock goes there, and a ticket is sold in it.
        t.clock.now = new Date('2026-11-24T18:00:00Z');
        const ticket = doc.paths['/api/v1/receipts'].post.requestBody.content['application/json'].examples.ticket.value;
        await created('POST', '/receipts', token, ticket);
        if (value.replaces === undefined) return { body: value };
        // The replacement's example names a vigente global invoice of its day: one is issued first.
        const { replaces: _, ...period } = value;
        return { body: { ...value, replaces: (await created('POST', '/receipts/global-invoice', token, period)).id } };
      },
      invoicePortalTicket: async (value, path) => {
        // A ticket of the tenant's, its key printed on it: what the customer types.
        const ticket = await openReceipt(admin);
        return { path: path.replace('{tenant_id}', admin.tenant.id), body: { ...value, clave: ticket.key } };
      },
      updateWebhook: async (value, path) => {
        const hook = await created('POST', '/webhooks', token, { url: 'https://erp.example.com/hooks/otro', events: ['cfdi.timbrado'] });
        return { path: path.replace('{id}', hook.id), body: value };
      },
      rotateWebhookSecret: async (value, path) => {
        const hook = await created('POST', '/webhooks', token, { url: 'https://erp.example.com/hooks/rotado', events: ['cfdi.timbrado'] });
        return { path: path.replace('{id}', hook.id), body: value };
      },
    };

    let sent = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
          const where = `${method.toUpperCase()} ${path} (${type})`;
          const examples = Object.entries<Example>(media.examples ?? {});
          expect([where, examples.length > 0]).toEqual([where, true]);
          for (const [name, example] of examples) {
            const fill = prepare[op.operationId];
            if (path.includes('{') && !fill) throw new Error(`${where}: add ${op.operationId} to prepare, to fill ${path}`);
            const body = fill ? await fill(example.value, path, type) : { body: example.value };
            const res = await request(method.toUpperCase(), path, { token, ...body });
            expect([where, name, res.status < 300 ? 'ok' : res.text]).toEqual([where, name, 'ok']);
            if (op.operationId === 'validateCfdi') expect([where, name, res.json]).toEqual([where, name, { valid: true, errors: [], warnings: [] }]);
            sent++;
          }
        }
      }
    }
    expect(sent).toBeGreaterThanOrEqual(25);
  }, 60_000);

  test('POST /cfdis has one example per voucher type, Carta Porte by each transport, and Comercio Exterior on I and T', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json;
    const examples = doc.paths['/api/v1/cfdis'].post.requestBody.content['application/json'].examples;
    expect(Object.keys(examples)).toEqual([
      'ingreso',
      'egreso',
      'pago',
      'nomina',
      'traslado',
      'traslado_carta_porte_autotransporte',
      'ingreso_carta_porte_autotransporte',
      'traslado_carta_porte_maritimo',
      'traslado_carta_porte_aereo',
      'traslado_carta_porte_ferroviario',
      'ingreso_impuestos_locales',
      'ingreso_hidrocarburos',
      'ingreso_comercio_exterior',
      'traslado_comercio_exterior',
    ]);
    expect(Object.values<any>(examples).map((e) => e.value.tipo)).toEqual(['I', 'E', 'P', 'N', 'T', 'T', 'I', 'T', 'T', 'T', 'I', 'I', 'I', 'T']);
    for (const name of ['ingreso_comercio_exterior', 'traslado_comercio_exterior'])
      expect([name, examples[name].value.exportacion, Object.keys(examples[name].value.comercio_exterior).length > 0]).toEqual([name, '02', true]);
    // Each Carta Porte example describes the transport its name says (the test above stamps every example as it is).
    const transports: [string, string][] = [
      ['traslado_carta_porte_autotransporte', 'autotransporte'],
      ['ingreso_carta_porte_autotransporte', 'autotransporte'],
      ['traslado_carta_porte_maritimo', 'transporte_maritimo'],
      ['traslado_carta_porte_aereo', 'transporte_aereo'],
      ['traslado_carta_porte_ferroviario', 'transporte_ferroviario'],
    ];
    for (const [name, transport] of transports)
      expect([name, Object.keys(examples[name].value.carta_porte).filter((k) => k === 'autotransporte' || k.startsWith('transporte_'))]).toEqual([
        name,
        [transport],
      ]);
  });
});
