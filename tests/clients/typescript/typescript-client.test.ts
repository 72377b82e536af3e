import { afterAll, describe, expect, test } from 'bun:test';
import { byStatus, type components, createCfdiClient, formData } from '@cfdi-api/client';
import { createTestApp, csdFiles, ICV, TENANTS } from '../../helpers.ts';

// The generated client against the real app on a real socket: only the client talks to the server.
const t = await createTestApp();
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch });
afterAll(() => server.stop(true));
const baseUrl = `http://127.0.0.1:${server.port}`;

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i;
const invoice: components['schemas']['CfdiRequest'] = {
  tipo: 'I',
  forma_pago: '03',
  metodo_pago: 'PUE',
  receptor: ICV,
  conceptos: [
    {
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: 'Servicio de facturación',
      cantidad: '2',
      valor_unitario: '500',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
};

/** A tenant, its sandbox API key and its CSD, all through the client. */
async function issuer() {
  const anonymous = createCfdiClient({ baseUrl });
  const registered = await anonymous.POST('/api/v1/auth/register', {
    body: { email: `client-${crypto.randomUUID()}@example.com`, password: 'a-long-password-1', nombre: 'Ana López', tenant: TENANTS.EKU },
  });
  expect(registered.response.status).toBe(201);
  if (!registered.data) throw new Error(`register: ${JSON.stringify(registered.error)}`);
  expect(registered.data.tenant.rfc).toBe('EKU9003173C9');
  expect(registered.data.token_type).toBe('Bearer');

  const session = createCfdiClient({ baseUrl, token: registered.data.access_token });
  const key = await session.POST('/api/v1/api-keys', { body: { name: 'ERP' } });
  expect(key.response.status).toBe(201);
  if (!key.data) throw new Error(`api key: ${JSON.stringify(key.error)}`);
  expect(key.data.key).toMatch(/^sk_test_/);
  expect(key.data.environment).toBe('test');

  const client = createCfdiClient({ baseUrl, apiKey: key.data.key });
  const files = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
  const csd = await client.POST('/api/v1/csds', {
    body: { cer: new Blob([new Uint8Array(files.cer)]), key: new Blob([new Uint8Array(files.key)]), password: files.password },
    bodySerializer: formData,
  });
  expect(csd.response.status).toBe(201);
  if (!csd.data) throw new Error(`csd: ${JSON.stringify(csd.error)}`);
  expect(csd.data).toMatchObject({ rfc: 'EKU9003173C9', serial_number: '30001000000500003416', status: 'active', environment: 'test' });
  return client;
}

describe('the typed TypeScript client (clients/typescript) against the running app', () => {
  test('sign up, API key, CSD, stamp an Ingreso, read it back, list it, download its XML, and a typed error', async () => {
    const client = await issuer();

    const issued = await client.POST('/api/v1/cfdis', { body: invoice, params: { header: { 'idempotency-key': crypto.randomUUID() } } });
    expect(issued.response.status).toBe(201);
    const cfdi = issued.data;
    if (!cfdi || cfdi.status === 'en_cola' || !('emisor' in cfdi)) throw new Error(`not stamped: ${JSON.stringify(issued.error ?? cfdi)}`);
    expect(cfdi.id).toMatch(/^cfdi_/);
    expect(cfdi.uuid).toMatch(UUID);
    expect(cfdi).toMatchObject({
      tipo: 'I',
      status: 'vigente',
      serie: 'A',
      folio: 1,
      moneda: 'MXN',
      subtotal: 1000,
      total_impuestos_trasladados: 160,
      total: 1160,
    });
    expect(cfdi.emisor.rfc).toBe('EKU9003173C9');
    expect(cfdi.conceptos).toEqual([expect.objectContaining({ cantidad: 2, valor_unitario: 500, importe: 1000 })]);
    const uuid = cfdi.uuid!;

    const got = await client.GET('/api/v1/cfdis/{id}', { params: { path: { id: cfdi.id } } });
    expect(got.response.status).toBe(200);
    expect(got.data).toMatchObject({ id: cfdi.id, uuid, status: 'vigente', total: 1160, receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' } });

    const listed = await client.GET('/api/v1/cfdis', { params: { query: { tipo: 'I', status: 'vigente', limit: 10 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data?.data.map((item) => [item.id, item.uuid, item.total])).toEqual([[cfdi.id, uuid, 1160]]);
    expect(listed.data?.pagination).toMatchObject({ has_more: false, limit: 10 });

    const xml = await client.GET('/api/v1/cfdis/{uuid}/xml', { params: { path: { uuid } }, parseAs: 'text' });
    expect(xml.response.status).toBe(200);
    expect(xml.response.headers.get('content-type')).toContain('xml');
    expect(xml.data).toStartWith('<?xml');
    expect(xml.data).toContain(`UUID="${uuid}"`);
    expect(xml.data).toContain('Total="1160.00"');

    const missing = await client.GET('/api/v1/cfdis/{id}', { params: { path: { id: 'cfdi_doesnotexist' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error?.error.code).toBe('HTTP_404');
    expect(missing.error?.path).toBe('/api/v1/cfdis/cfdi_doesnotexist');

    const invalid = await client.POST('/api/v1/cfdis', { body: { ...invoice, receptor: { ...ICV, uso_cfdi: 'ZZZ' } } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.error.code).toBe('HTTP_400');
    expect(invalid.error?.error.details.map((d) => d.field)).toContain('receptor.uso_cfdi');
  });

  test('byStatus: one result per status, 201 stamped, 202 queued, 409 the error envelope', async () => {
    const client = byStatus(await issuer());
    const stamped = await client.POST('/api/v1/cfdis', { body: { ...invoice, condiciones_de_pago: 'Contado', external_id: 'SO-1' } }); // not the XML the first test stamped
    if (stamped.status !== 201) throw new Error(`not stamped: ${JSON.stringify(stamped.data)}`);
    expect(stamped.data.uuid).toMatch(UUID);
    expect(stamped.data.emisor.rfc).toBe('EKU9003173C9');
    const queued = await client.POST('/api/v1/cfdis', { body: invoice, params: { header: { 'x-sandbox-scenario': 'pac_unavailable' } } });
    if (queued.status !== 202) throw new Error(`not queued: ${queued.status}`);
    expect(queued.data).toMatchObject({ status: 'en_cola', uuid: null });
    const taken = await client.POST('/api/v1/cfdis', { body: { ...invoice, external_id: 'SO-1' } });
    if (taken.status !== 409) throw new Error(`external_id reused: ${taken.status}`);
    expect(taken.data.error.details[0]?.field).toBe('external_id');
    expect(taken.response.headers.get('content-type')).toContain('application/json');
  });

  test('without a credential the client gets the typed 401 envelope', async () => {
    const { data, error, response } = await createCfdiClient({ baseUrl }).GET('/api/v1/cfdis');
    expect(response.status).toBe(401);
    expect(data).toBeUndefined();
    expect(error?.error).toMatchObject({ code: 'HTTP_401' });
    expect(typeof error?.request_id).toBe('string');
  });
});

// Compile-time checks (never run): `tsc --noEmit -p .` fails if the client stops rejecting these.
export function _typeChecks(client: ReturnType<typeof createCfdiClient>) {
  // @ts-expect-error a misspelled field of the request body
  void client.POST('/api/v1/cfdis', { body: { tipo: 'I', receptor: ICV, conceptos: [], formas_pago: '03' } });
  // @ts-expect-error an amount of the wrong type
  void client.POST('/api/v1/cfdis', { body: { tipo: 'I', receptor: ICV, conceptos: [{ ...invoice.conceptos![0]!, cantidad: true }] } });
  // @ts-expect-error a path the API does not have
  void client.GET('/api/v1/invoices');
  // @ts-expect-error a path parameter is required
  void client.GET('/api/v1/cfdis/{id}', {});
  void client.GET('/api/v1/cfdis/{id}', { params: { path: { id: 'x' } } }).then(({ data }) => {
    // @ts-expect-error a field the response does not have
    void data?.totl;
  });
  // byStatus narrows `data` by the status the document declares.
  void byStatus(client)
    .POST('/api/v1/cfdis', { body: invoice })
    .then((res) => {
      if (res.status === 202) {
        const queued: 'en_cola' = res.data.status;
        // @ts-expect-error a queued invoice has no emisor yet
        void res.data.emisor;
        return queued;
      }
      if (res.status === 201) {
        // @ts-expect-error only a queued invoice has a mensaje
        void res.data.mensaje;
        return res.data.emisor.rfc;
      }
      if (res.status === 400) {
        // @ts-expect-error an error envelope is not an invoice
        void res.data.uuid;
        return res.data.error.code;
      }
      // @ts-expect-error POST /cfdis never answers 204
      return res.status === 204;
    });
}
