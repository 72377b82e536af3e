import { beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Environment } from '../../../src/db/schema/index.ts';
import { intakeReceived } from '../../../src/invoices/received/intake.ts';
import { createSatCertificateSource } from '../../../src/pac/sat-certificates.ts';
import { createTestApp, ICV, ingreso, issuer, READY, testSandboxSat } from '../../helpers.ts';

/** intakeReceived as other modules call it (Descarga Masiva): outcomes, rows, events; the API is in api.test.ts. */
const t = await createTestApp();
let xml = '';
let receiver: { id: string };
const deps = () => ({
  db: t.db,
  now: () => t.clock.now,
  identity: { tenantById: async (id: string) => (id === receiver.id ? { rfc: ICV.rfc } : undefined) } as never,
  satCertificates: createSatCertificateSource({ sandboxSat: testSandboxSat(), fetch: (async () => new Response('no', { status: 404 })) as never }),
});
const scope = (environment: Environment = 'test') => ({ tenantId: receiver.id, environment });

beforeAll(async () => {
  const emisor = await issuer(t, READY);
  const res = await t.call('POST', '/cfdis', { token: emisor.key, body: ingreso() });
  expect(res.status).toBe(201);
  xml = await (await t.app.request(`/api/v1/cfdis/${res.json.id}/xml`, { headers: { authorization: `Bearer ${emisor.key}` } })).text();
  receiver = (await issuer(t, { tenant: { rfc: ICV.rfc, nombre: ICV.nombre, regimen_fiscal: '601', codigo_postal: '33826' } })).tenant;
}, 60_000);

describe('intakeReceived', () => {
  test('created, then duplicate (same bytes, other bytes); invalid and not well-formed stored with their checks; events in the same transaction', async () => {
    const bytes = new TextEncoder().encode(xml);
    const [created] = await intakeReceived(deps(), scope(), [{ name: 'a.xml', bytes }]);
    expect(created).toMatchObject({ file: 'a.xml', result: 'created', reasons: [] });
    expect(created!.id).toMatch(/^rcv_/);
    const uuid = created!.uuid!;
    expect(uuid).toMatch(/^[0-9A-F-]{36}$/);

    const altered = new TextEncoder().encode(xml.replace(/(\sTotal=")(\d)/, (_, a: string, d: string) => `${a}${(Number(d) + 1) % 10}`));
    const again = await intakeReceived(deps(), scope(), [
      { name: 'same.xml', bytes },
      { name: 'other.xml', bytes: altered },
      { name: 'broken.xml', bytes: bytes.slice(0, 200) },
    ]);
    expect(again.map((o) => [o.file, o.result, o.id])).toEqual([
      ['same.xml', 'duplicate', created!.id],
      ['other.xml', 'duplicate', created!.id],
      ['broken.xml', 'invalid', expect.stringMatching(/^rcv_/)],
    ]);
    expect(again[0]!.reasons[0]!.detail).toContain('same bytes');
    expect(again[1]!.reasons[0]!.detail).toContain('other bytes');
    expect(again[2]!.reasons.map((r) => r.check)).toEqual(['well_formed']);

    // The same UUID in live is another scope: stored there, invalid (a sandbox stamp under live's authorities).
    const [live] = await intakeReceived(deps(), scope('live'), [{ name: 'other.xml', bytes: altered }]);
    expect(live!.result).toBe('invalid');
    expect(live!.reasons.map((r) => r.check)).toContain('sello');

    const rows = await t.query<{ id: string; validation: string; uuid: string | null; emisor_rfc: string | null; total: string | null }>(
      sql`select id, validation, uuid, emisor_rfc, total from received_cfdis where tenant_id = ${receiver.id} order by id`,
    );
    expect(rows.map((r) => [r.validation, r.uuid])).toEqual([
      ['validated', uuid],
      ['invalid', null],
      ['invalid', uuid],
    ]);
    expect(rows[0]!.emisor_rfc).toBe('EKU9003173C9');
    const events = await t.query<{ type: string; environment: string }>(sql`select type, environment from events where tenant_id = ${receiver.id} order by id`);
    expect(events).toEqual([
      { type: 'received_cfdi.created', environment: 'test' },
      { type: 'received_cfdi.invalid', environment: 'test' },
      { type: 'received_cfdi.invalid', environment: 'live' },
    ]);
    const [stored] = await t.query<{ xml: Buffer }>(sql`select xml from received_cfdis where id = ${created!.id}`);
    expect(Buffer.compare(Buffer.from(stored!.xml), Buffer.from(bytes))).toBe(0);
  }, 60_000);

  test('a CFDI 3.3 is stored not_validated, saying why; an unreachable certificate repository leaves it not_validated', async () => {
    const v33 = xml
      .replace('Version="4.0"', 'Version="3.3"')
      .replaceAll('http://www.sat.gob.mx/cfd/4', 'http://www.sat.gob.mx/cfd/3')
      .replace(/UUID="[^"]+"/, 'UUID="11111111-2222-3333-4444-555555555555"');
    const [o] = await intakeReceived(deps(), scope(), [{ name: 'v33.xml', bytes: new TextEncoder().encode(v33) }]);
    expect(o).toMatchObject({ result: 'created', reasons: [{ check: 'version', detail: 'CFDI 3.3: validation is a later step' }] });

    // A NoCertificadoSAT the sandbox does not own goes to the repository, which times out.
    const foreign = xml
      .replace(/NoCertificadoSAT="\d+"/, 'NoCertificadoSAT="00001000000504465028"')
      .replace(/UUID="[^"]+"/, 'UUID="AAAAAAAA-2222-3333-4444-555555555555"');
    const down = {
      ...deps(),
      satCertificates: createSatCertificateSource({
        fetch: (async () => {
          throw new Error('timed out');
        }) as never,
      }),
    };
    const [d] = await intakeReceived(down, scope(), [{ name: 'f.xml', bytes: new TextEncoder().encode(foreign) }]);
    // The TFD changed, so SelloSAT would not verify anyway: here it cannot even be looked at.
    expect(d!.result).toBe('created');
    expect(d!.reasons).toEqual([{ check: 'sat_certificate_found', detail: expect.stringContaining('could not be reached') }]);
    const [row] = await t.query<{ validation: string }>(sql`select validation from received_cfdis where id = ${d!.id}`);
    expect(row!.validation).toBe('not_validated');
  }, 60_000);
});
