import { describe, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import { rfcCheckDigit } from '../../../src/cfdi/rules/rfc.ts';
import { validateRetencionSchema } from '../../../src/cfdi/retenciones/xsd.ts';
import { retenciones } from '../../../src/db/schema/index.ts';
import { RetencionBatchExamples, RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { createTestApp, expectStatus, issuer, READY } from '../../helpers.ts';

/**
 * POST /retenciones/batch: per-item results in order, idempotent per item (a retried batch creates nothing new),
 * invalid items refused one by one without failing the others, and a platform's month of 1,000 sellers.
 */
const t = await createTestApp();
const newIssuer = (keys: ('test' | 'live')[] = ['test']) => issuer(t, { ...READY, keys, csd: ['test'] });
const batchExample = () => structuredClone(RetencionBatchExamples.retencion_batch_plataformas.value);
const plataformas = () => structuredClone(RetencionExamples.retencion_plataformas_tecnologicas.value);
const key = () => `item-${crypto.randomUUID()}`;
const count = (tenantId: string) => t.count(retenciones, eq(retenciones.tenantId, tenantId));
const events = async (tenantId: string) =>
  (await t.query<{ n: number }>(sql`select count(*) as n from events where tenant_id = ${tenantId} and type = 'retencion.timbrada'`))[0]!.n;

/** A persona física's RFC with SAT's check digit, distinct for each n below 26⁴ × 28. */
function sellerRfc(n: number): string {
  const letters = Array.from({ length: 4 }, (_, i) => String.fromCharCode(65 + (Math.floor(n / 26 ** i) % 26))).join('');
  const day = String((n % 28) + 1).padStart(2, '0');
  const base = `${letters}8501${day}A1`;
  return base + rfcCheckDigit(base);
}

/** One seller's month on the platform, as the batch's item. */
function sellerItem(n: number, idempotencyKey: string) {
  const v = plataformas();
  const precio = String(1000 + n);
  return {
    ...v,
    idempotency_key: idempotencyKey,
    receptor: { nacionalidad: 'Nacional' as const, rfc: sellerRfc(n), nombre: `VENDEDOR ${n}`, domicilio_fiscal: '01000' },
    totales: { monto_tot_operacion: precio, monto_tot_grav: precio },
    impuestos_retenidos: v.impuestos_retenidos.map((i) => ({ ...i, base_ret: precio })),
    plataformas_tecnologicas: {
      periodicidad: '04',
      servicios: [
        {
          forma_pago_serv: '03',
          tipo_de_serv: '01',
          fecha_serv: '2026-10-05',
          precio_serv_sin_iva: precio,
          impuestos_trasladados: { tasa_cuota: '0.16' },
          comision_del_servicio: { base: precio, porcentaje: '0.1' },
        },
      ],
    },
  };
}

describe('POST /retenciones/batch', () => {
  test('the named example stamps each item; retried, every item is a duplicate of the first answer and nothing new is stored', async () => {
    const a = await newIssuer();
    const first = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body: batchExample() }), 200);
    expect(first.json).toMatchObject({ created: 2, duplicate: 0, invalid: 0 });
    expect(first.json.results.map((r) => [r.index, r.status])).toEqual([
      [0, 'created'],
      [1, 'created'],
    ]);
    for (const r of first.json.results) {
      const got = expectStatus(await t.api('GET', `/retenciones/${r.id!}`, { token: a.key }), 200).json;
      expect(got).toMatchObject({
        status: 'vigente',
        uuid: r.uuid!,
        folio_int: r.folio_int!,
        complementos: ['plataformasTecnologicas:ServiciosPlataformasTecnologicas'],
      });
      const xml = (await t.call('GET', `/retenciones/${r.id!}/xml`, { token: a.key })).text;
      expect(await validateRetencionSchema(xml)).toEqual({ valid: true, errors: [] });
    }
    const receptores = await t.query<{ receptor_rfc: string }>(sql`select receptor_rfc from retenciones where tenant_id = ${a.tenant.id}`);
    expect(receptores.map((r) => r.receptor_rfc).sort()).toEqual(['FUNK671228PH6', 'XIQB891116QE4']);

    const again = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body: batchExample() }), 200);
    expect(again.json).toMatchObject({ created: 0, duplicate: 2, invalid: 0 });
    expect(again.json.results).toEqual(first.json.results.map((r) => ({ ...r, status: 'duplicate' })));
    expect(await count(a.tenant.id)).toBe(2);
    expect(Number(await events(a.tenant.id))).toBe(2);

    // The Idempotency-Key header on the whole call replays its first answer, as on every POST.
    const headers = { 'idempotency-key': `batch-${crypto.randomUUID()}` };
    const body = { items: [sellerItem(40, key())] };
    const once = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body, headers }), 200);
    expect(once.json.created).toBe(1);
    expect(expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body, headers }), 200).json).toEqual(once.json);
    expect(await count(a.tenant.id)).toBe(3);

    // Keys are the tenant's: another tenant's batch with the same keys issues its own.
    const b = await newIssuer();
    expect(expectStatus(await t.api('POST', '/retenciones/batch', { token: b.key, body: batchExample() }), 200).json.created).toBe(2);
  });

  test('invalid items are answered one by one, take no folio, and do not stop the others', async () => {
    const a = await newIssuer();
    const badFormat: Record<string, unknown> = { ...sellerItem(1, key()) };
    delete badFormat.receptor;
    const badRule = { ...sellerItem(2, key()), cve_retenc: '29' };
    const repeated = sellerItem(3, 'same-key');
    const body = {
      items: [sellerItem(0, key()), badFormat, badRule, repeated, { ...sellerItem(4, 'same-key') }, 'not an object', sellerItem(5, key())],
    };
    const res = await t.call('POST', '/retenciones/batch', { token: a.key, body });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ created: 3, duplicate: 0, invalid: 4 });
    const results = res.json.results as { index: number; status: string; folio_int?: string; errors?: { field: string; issue: string; rule?: string }[] }[];
    expect(results.map((r) => r.status)).toEqual(['created', 'invalid', 'invalid', 'created', 'invalid', 'invalid', 'created']);
    expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(results[1]!.errors).toContainEqual(expect.objectContaining({ field: 'receptor' }));
    expect(results[2]!.errors).toContainEqual(expect.objectContaining({ field: 'cve_retenc', rule: 'Reten20105' }));
    expect(results[4]!.errors).toEqual([{ field: 'idempotency_key', issue: 'repeats the key of item 3: each item needs its own' }]);
    expect(results[5]!.errors!.length).toBeGreaterThan(0);
    // The invalid items took no folio: the three created are consecutive (in any order: PostgreSQL commits them side by side).
    const folios = results
      .filter((r) => r.status === 'created')
      .map((r) => Number(r.folio_int!.replace(/^\D+/, '')))
      .sort((x, y) => x - y);
    expect(folios).toEqual([folios[0]!, folios[0]! + 1, folios[0]! + 2]);
    expect(await count(a.tenant.id)).toBe(3);
  });

  test('a key sent again with another item is invalid, naming the retención it issued', async () => {
    const a = await newIssuer();
    const k = key();
    const first = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body: { items: [sellerItem(7, k)] } }), 200);
    const other = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body: { items: [sellerItem(8, k)] } }), 200);
    expect(other.json.results).toEqual([
      {
        index: 0,
        status: 'invalid',
        errors: [
          { field: 'idempotency_key', issue: `already issued retención ${first.json.results[0]!.id} with another item: send a new key for a new document` },
        ],
      },
    ]);
    expect(await count(a.tenant.id)).toBe(1);
  });

  test('the request itself: 1 to 1,000 items (400), a body up to 4 MiB (413 beyond), ADMIN or OPERATOR; live mode without a PAC 503', async () => {
    const a = await newIssuer(['test', 'live']);
    for (const body of [{ items: [] }, {}, { items: 'x' }, { items: [sellerItem(0, key())], extra: 1 }]) {
      const res = await t.call('POST', '/retenciones/batch', { token: a.key, body });
      expect(res.status).toBe(400);
      expect(res.json.error.details[0].field).toMatch(/^(items|extra)/);
    }
    const tooMany = await t.call('POST', '/retenciones/batch', { token: a.key, body: { items: Array.from({ length: 1001 }, () => ({})) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.details).toContainEqual(expect.objectContaining({ field: 'items', issue: 'must have at most 1000 items' }));
    const huge = await t.call('POST', '/retenciones/batch', {
      token: a.key,
      body: { items: [{ idempotency_key: 'x', desc_retenc: 'x'.repeat(4.5 * 1024 * 1024) }] },
    });
    expect(huge.status).toBe(413);
    // Over the 1 MiB every other route takes, under this route's 4 MiB: read, and the item answered on its own.
    const large = { ...sellerItem(0, key()), complementos_xml: Array.from({ length: 8 }, () => `<x>${'y'.repeat(190_000)}</x>`) };
    const read = await t.call('POST', '/retenciones/batch', { token: a.key, body: { items: [large] } });
    expect(read.status).toBe(200);
    expect(read.json.results[0].status).toBe('invalid');
    expect(await count(a.tenant.id)).toBe(0);

    const live = await t.call('POST', '/retenciones/batch', { token: a.live, body: { items: [sellerItem(0, key())] } });
    // This app has no live PAC (tests/invoices/retenciones/live.test.ts has two).
    expect(live.status).toBe(503);
    expect(live.json.error.details[0].field).toBe('environment');
    const viewer = await a.userWithRole('VIEWER');
    expect((await t.call('POST', '/retenciones/batch', { token: viewer.token, body: { items: [sellerItem(0, key())] } })).status).toBe(403);
    expect(await count(a.tenant.id)).toBe(0);
  });

  test('the audit log: an entry per retención created, in its transaction, and one for the call', async () => {
    const a = await newIssuer();
    const res = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body: batchExample() }), 200);
    const rows = await t.query<{ action: string; resource_id: string; status: number }>(
      sql`select action, resource_id, status from audit_log where tenant_id = ${a.tenant.id} and action = 'issueRetencionBatch' order by id`,
    );
    expect(rows.map((r) => [r.resource_id, Number(r.status)]).sort()).toEqual(
      [...res.json.results.map((r) => [r.id!, 201]), ['batch', 200]].sort() as [string, number][],
    );
  });
});

// Acceptance 3 of issue 41, on both engines: about 3 s on SQLite, 8 s on PostgreSQL (a transaction per item there).
const SELLERS = 1000;
describe(`a platform's month: ${SELLERS} Plataformas Tecnológicas retenciones for ${SELLERS} sellers in one call`, () => {
  test('all stamped once; the same batch retried creates nothing new', async () => {
    const a = await newIssuer();
    const body = { items: Array.from({ length: SELLERS }, (_, n) => sellerItem(n, `seller-${n}-2026-10`)) };
    expect(new Set(body.items.map((i) => i.receptor.rfc)).size).toBe(SELLERS);
    const first = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body }), 200);
    expect(first.json).toMatchObject({ created: SELLERS, duplicate: 0, invalid: 0 });
    expect(new Set(first.json.results.map((r) => r.uuid)).size).toBe(SELLERS);
    expect(await count(a.tenant.id)).toBe(SELLERS);
    const [stored] = await t.query<{ n: number; rfcs: number }>(
      sql`select count(*) as n, count(distinct receptor_rfc) as rfcs from retenciones where tenant_id = ${a.tenant.id} and status = 'vigente' and uuid is not null`,
    );
    expect([Number(stored!.n), Number(stored!.rfcs)]).toEqual([SELLERS, SELLERS]);

    const again = expectStatus(await t.api('POST', '/retenciones/batch', { token: a.key, body }), 200);
    expect(again.json).toMatchObject({ created: 0, duplicate: SELLERS, invalid: 0 });
    expect(again.json.results.map((r) => r.id)).toEqual(first.json.results.map((r) => r.id));
    expect(await count(a.tenant.id)).toBe(SELLERS);
    expect(Number(await events(a.tenant.id))).toBe(SELLERS);
    expect(await t.count(retenciones, and(eq(retenciones.tenantId, a.tenant.id), eq(retenciones.batchKey, 'seller-0-2026-10')))).toBe(1);
  }, 120_000);
});
