import { afterAll, describe, expect, test } from 'bun:test';
import { createTestApp, ICV, ingreso, issuer } from '../../helpers.ts';
import { loadPublishedLista69b } from '../../../src/invoices/sat-lists/service.ts';
import { startSatMock } from '../../sat-mock/sat-mock.ts';

const HEADER = 'Información actualizada al 30 de septiembre de 2025\r\nListado completo\r\nNo,RFC,Nombre del Contribuyente,Situación del contribuyente\r\n';
const csv = (rows: [string, string][]) => HEADER + rows.map(([rfc, s], i) => `${i + 1},${rfc},NOMBRE ${i},${s}`).join('\r\n') + '\r\n';
const LISTED = 'LIS900101AB5';

const t = await createTestApp({ block69bReceivers: true });
const mock = startSatMock({ now: () => new Date('2025-10-01T00:00:00Z') });
afterAll(() => mock.stop());

async function upload(token: string, body: string, type = 'text/csv') {
  const r = await t.app.request('/api/v1/sat-lists/69b', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
  return { status: r.status, json: (await r.json()) as any };
}
const toReceptor = (rfc: string) => ingreso({ receptor: { ...ICV, rfc } });

describe('POST /sat-lists/69b and GET /sat-lists/69b', () => {
  test("a tenant's upload is its own (tenant and environment): another tenant, and its own live side, do not see it", async () => {
    const a = await issuer(t, { keys: ['test', 'live'], csd: true });
    const b = await issuer(t, { keys: ['test'], csd: true });
    const up = await upload(
      a.key,
      csv([
        [LISTED, 'Definitivo'],
        ['PRE900101AB2', 'Desvirtuado'],
        ['BAD', 'Definitivo'],
      ]),
    );
    expect(up.status).toBe(200);
    expect(up.json.own).toMatchObject({ list_date: '2025-09-30', entries: 2, counts: { definitivo: 1, desvirtuado: 1, presunto: 0, sentencia_favorable: 0 } });
    expect(up.json.problems).toEqual([{ line: 6, issue: expect.stringContaining('column 2') }]);
    expect(up.json.environment).toBe('test');
    expect(up.json.sandbox).toContainEqual({ rfc: 'EFO900101AB1', situacion: 'definitivo' });

    // A: issuing to the listed RFC is refused, naming receptor.rfc and the rule; /cfdis/validate agrees.
    const refused = await t.call('POST', '/cfdis', { token: a.key, body: toReceptor(LISTED) });
    expect(refused.status).toBe(400);
    const detail = refused.json.error.details.find((d: any) => d.field === 'receptor.rfc');
    expect(detail.issue).toContain('Lista 69-B, artículo 69-B CFF');
    const validated = await t.call('POST', '/cfdis/validate', { token: a.key, body: toReceptor(LISTED) });
    expect(validated.json.valid).toBe(false);
    expect(validated.json.errors.map((e: any) => e.field)).toContain('receptor.rfc');
    // Its own list says the sandbox's presunto RFC is desvirtuado: not blocked (only definitivo is).
    expect((await t.call('POST', '/cfdis/validate', { token: a.key, body: toReceptor('PRE900101AB2') })).json.valid).toBe(true);

    // B does not see A's list: the same receptor is fine, and B has no list of its own.
    expect((await t.call('POST', '/cfdis/validate', { token: b.key, body: toReceptor(LISTED) })).json).toMatchObject({ valid: true });
    expect((await t.call('GET', '/sat-lists/69b', { token: b.key })).json.own).toBeNull();
    // A's live side has no list of its own either.
    const live = await t.call('GET', '/sat-lists/69b', { token: a.live });
    expect(live.json).toMatchObject({ environment: 'live', own: null, sandbox: null });
    const liveValidate = await t.call('POST', '/cfdis/validate', { token: a.live, body: toReceptor(LISTED) });
    expect(liveValidate.json.errors.map((e: any) => e.field)).not.toContain('receptor.rfc');

    // A second upload replaces the first whole.
    const again = await upload(a.key, csv([['OTR900101AB6', 'Presunto']]));
    expect(again.json.own).toMatchObject({ entries: 1, counts: { presunto: 1, definitivo: 0 } });
    expect((await t.call('POST', '/cfdis/validate', { token: a.key, body: toReceptor(LISTED) })).json.valid).toBe(true);
  });

  test("test mode: the sandbox's EFO900101AB1 is always definitivo; issuing to it is refused, without any list loaded", async () => {
    const a = await issuer(t, { keys: ['test'], csd: true });
    const res = await t.call('POST', '/cfdis', { token: a.key, body: toReceptor('EFO900101AB1') });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toContainEqual(expect.objectContaining({ field: 'receptor.rfc', rule: 'CFF 69-B' }));
    expect((await t.call('POST', '/cfdis', { token: a.key, body: ingreso() })).status).toBe(201);
  });

  test("the published list (SAT_69B_URL, from the SAT mock) is every live tenant's; a tenant's own entry wins for its RFC; test mode ignores it", async () => {
    mock.control.list69b = [
      { rfc: 'PUB900101AB7', nombre: 'UNO', situacion: 'Definitivo' },
      { rfc: 'PUB900101AB8', nombre: 'DOS', situacion: 'Definitivo' },
    ];
    expect(await loadPublishedLista69b({ db: t.db, now: () => t.clock.now, url: mock.list69bUrl })).toEqual({
      date: '2025-10-01',
      entries: 2,
      problems: 0,
      flagged: 0,
    });
    const a = await issuer(t, { keys: ['test', 'live'] });
    const b = await issuer(t, { keys: ['live'] });
    expect((await t.call('GET', '/sat-lists/69b', { token: a.live })).json.published).toMatchObject({
      list_date: '2025-10-01',
      entries: 2,
      counts: { definitivo: 2 },
    });
    const fields = async (token: string, rfc: string) =>
      (await t.call('POST', '/cfdis/validate', { token, body: toReceptor(rfc) })).json.errors.map((e: any) => e.field);
    expect(await fields(a.live, 'PUB900101AB7')).toContain('receptor.rfc');
    expect(await fields(b.live, 'PUB900101AB8')).toContain('receptor.rfc');
    // A says PUB900101AB8 is desvirtuado (a newer list of its own): A may invoice it; B still may not.
    expect((await upload(a.live, csv([['PUB900101AB8', 'Desvirtuado']]))).status).toBe(200);
    expect(await fields(a.live, 'PUB900101AB8')).not.toContain('receptor.rfc');
    expect(await fields(b.live, 'PUB900101AB8')).toContain('receptor.rfc');
    // Test mode does not consult SAT's published list.
    expect(await fields(a.key, 'PUB900101AB7')).not.toContain('receptor.rfc');
    // A load that reads no taxpayer keeps the stored list.
    mock.control.list69b = [];
    await expect(loadPublishedLista69b({ db: t.db, now: () => t.clock.now, url: mock.list69bUrl })).rejects.toThrow(/no taxpayers/);
    expect((await t.call('GET', '/sat-lists/69b', { token: a.live })).json.published.entries).toBe(2);
  });

  test('multipart upload; no file, no taxpayer, another content type, a role below ADMIN are refused', async () => {
    const a = await issuer(t, { keys: ['test'] });
    const form = new FormData();
    form.append('file', new Blob([csv([[LISTED, 'Sentencia Favorable']])]), 'Listado_Completo_69-B.csv');
    const res = await t.app.request('/api/v1/sat-lists/69b', { method: 'POST', headers: { authorization: `Bearer ${a.key}` }, body: form });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).own.counts.sentencia_favorable).toBe(1);

    const empty = new FormData();
    empty.append('other', 'x');
    const noFile = await t.app.request('/api/v1/sat-lists/69b', { method: 'POST', headers: { authorization: `Bearer ${a.key}` }, body: empty });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as any).error.details.map((d: any) => d.field)).toContain('file');
    const junk = await upload(a.key, 'a\nb\nc\n1,nope,x,Definitivo\n');
    expect(junk.status).toBe(400);
    expect(junk.json.error.details[0]).toMatchObject({ field: 'file', issue: expect.stringContaining('line 4') });
    expect((await upload(a.key, '{}', 'application/json')).status).toBe(415);
    const operator = await a.userWithRole('OPERATOR');
    expect((await upload(operator.token, csv([[LISTED, 'Definitivo']]))).status).toBe(403);
    expect((await t.call('GET', '/sat-lists/69b', { token: operator.token })).status).toBe(200);
  });
});
