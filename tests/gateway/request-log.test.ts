import { describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestApp, issuer, READY } from '../helpers.ts';

/** The request log line an operator reads: an error answer names its code, the first field and the SAT rule. */
const lines: Record<string, any>[] = [];
const t = await createTestApp({ logger: createLogger('info', (line) => lines.push(JSON.parse(line))) });
const lineFor = (requestId: string) => lines.find((l) => l.msg === 'request' && l.request_id === requestId);

describe('request log', () => {
  test('a 4xx line carries error_code, error_field and error_rule; a 2xx line carries none', async () => {
    const key = (await issuer(t, READY)).key;
    const bad = await t.call('POST', '/cfdis/validate', { token: key, headers: { 'x-request-id': 'log-400' }, body: { tipo: 'I', receptor: { rfc: 'X' } } });
    expect(bad.status).toBe(400);
    expect(lineFor('log-400')).toMatchObject({ status: 400, error_code: 'HTTP_400', error_field: bad.json.error.details[0].field });

    const receptor = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
    const concepto = { clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: '1', valor_unitario: '100', objeto_imp: '01' };
    const ruled = await t.call('POST', '/cfdis', {
      token: key,
      headers: { 'x-request-id': 'log-rule' },
      body: { tipo: 'I', receptor: { ...receptor, uso_cfdi: 'ZZZ' }, conceptos: [concepto] },
    });
    expect(ruled.status).toBe(400);
    const first = ruled.json.error.details[0];
    expect(first.rule).toMatch(/^CFDI40/);
    expect(lineFor('log-rule')).toMatchObject({ status: 400, error_code: 'HTTP_400', error_field: first.field, error_rule: first.rule });

    const missing = await t.call('GET', '/cfdis/cfdi_nothere', { token: key, headers: { 'x-request-id': 'log-404' } });
    expect(missing.status).toBe(404);
    expect(lineFor('log-404')).toMatchObject({ status: 404, error_code: 'HTTP_404' });

    const ok = await t.call('GET', '/tenants/me', { token: key, headers: { 'x-request-id': 'log-200' } });
    expect(ok.status).toBe(200);
    const line = lineFor('log-200');
    expect(line).toMatchObject({ status: 200, tenant_id: expect.any(String) });
    expect(Object.keys(line!).filter((k) => k.startsWith('error_'))).toEqual([]);
  });

  test('errors the gateway answers itself are logged the same way', async () => {
    const unauthenticated = await t.call('GET', '/cfdis', { headers: { 'x-request-id': 'log-401' } });
    expect(unauthenticated.status).toBe(401);
    expect(lineFor('log-401')).toMatchObject({ status: 401, error_code: 'HTTP_401', error_field: 'authorization' });
    const notAllowed = await t.call('POST', '/health', { headers: { 'x-request-id': 'log-405' } });
    expect(lineFor('log-405')).toMatchObject({ status: notAllowed.status, error_code: 'HTTP_405', error_field: 'method' });
    const malformed = await t.call('POST', '/auth/login', { raw: '{"email": }', headers: { 'x-request-id': 'log-422', 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    expect(lineFor('log-422')).toMatchObject({ error_code: 'HTTP_422', error_field: 'body' });
  });
});
