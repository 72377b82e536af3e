import { afterAll, describe, expect, test } from 'bun:test';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, withTransaction } from '../../src/db/index.ts';
import { recordStamp } from '../../src/invoices/cfdis/stamping.ts';
import { createSandboxPac } from '../../src/pac/sandbox.ts';
import { closeDatabase, createTestApp, ingreso, issuer, sqliteConnection, TENANTS, testSandboxSat } from '../helpers.ts';
import { sql } from 'drizzle-orm';
import journal from '../../drizzle/sqlite/meta/_journal.json' with { type: 'json' };

const invoice = ingreso();
/** When migration 0020 was made: it and every later one are undone (rate_counters, the Idempotency-Key lease, cfdi_emails, receipts, reply_to, cfdi_pdfs, login_addresses, email_budgets, the cfdis' pac, cfdi_stamp_attempts, cfdi_duplicate_stamps, cfdi_stats_deltas, the webhooks' previous secret) to go back before it. */
const MIGRATION_0020_AT = journal.entries.find((e) => e.tag === '0020_cfdi_typed_state')!.when;

const dir = mkdtempSync(join(tmpdir(), 'cfdi-typed-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// SQLite-only: it rewrites a SQLite file into what the code before migration 0020 left, and reads SQLite's JSON functions.
describe('migration 0020: failure reason and withdrawal time leave the summary JSON for columns', () => {
  test('invoices recorded before it read the same through the API, and a withdrawn one can still be stamped by an attempt in flight', async () => {
    const path = join(dir, 'cfdi.sqlite');
    const first = openDatabase(path);
    // No wake on enqueue: the queued invoice's job must not be in flight when it is withdrawn.
    const before = await createTestApp({ db: first, wakeOnEnqueue: false });
    const reg = await issuer(before, { tenant: TENANTS.EKU, keys: ['test'], csd: true });
    const { key } = reg;

    const stamped = await before.call('POST', '/cfdis', { token: key, body: invoice });
    expect(stamped.status).toBe(201);
    const rejected = await before.call('POST', '/cfdis', {
      token: key,
      body: invoice,
      headers: { 'x-sandbox-scenario': 'pac_rejected', 'idempotency-key': 'rejected' },
    });
    expect(rejected.status).toBe(422);
    const queued = await before.call('POST', '/cfdis', { token: key, body: invoice, headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(queued.status).toBe(202);
    const withdrawn = await before.call('POST', `/cfdis/${queued.json.id}/withdraw`, { token: key });
    expect(withdrawn.status).toBe(200);
    const ids = [stamped.json.id, queued.json.id] as string[];
    const rejectedId = (await before.call('GET', '/cfdis?status=fallido', { token: key })).json.data
      .map((c: { id: string }) => c.id)
      .find((id: string) => !ids.includes(id)) as string;
    const reads = async (t: typeof before) => Promise.all([...ids, rejectedId].map(async (id) => (await t.call('GET', `/cfdis/${id}`, { token: key })).json));
    const read = await reads(before);

    // The rows as the code before the migration wrote them: the reason and the time inside the summary, no columns;
    // the migrations after it undone too, so that reopening applies 0020 and those again.
    closeDatabase(first);
    const raw = new Database(path);
    raw.exec(`
      update cfdis set summary = json_set(summary, '$.error', failure_reason) where failure_reason is not null;
      update cfdis set summary = json_set(summary, '$.withdrawn_at', withdrawn_at) where withdrawn_at is not null;
      alter table cfdis drop column failure_reason;
      alter table cfdis drop column withdrawn_at;
      drop table rate_counters;
      alter table idempotency_keys drop column owner;
      alter table idempotency_keys drop column lease_until;
      drop table receipts;
      drop table receipt_settings;
      drop table cfdi_emails;
      alter table cfdis drop column client_id;
      alter table tenants drop column reply_to;
      drop table cfdi_pdfs;
      drop table login_addresses;
      drop table email_budgets;
      alter table cfdis drop column pac;
      drop table cfdi_stamp_attempts;
      drop table cfdi_duplicate_stamps;
      drop table cfdi_stats_deltas;
      alter table tenants drop column domicilio_fiscal;
      drop table fiels;
      drop table received_cfdi_lines;
      drop table received_cfdis;
      drop table sat_69b_entries;
      drop table sat_69b_lists;
      drop table sat_metadata;
      drop table sat_download_packages;
      drop table sat_downloads;
      drop table sat_download_syncs;
      alter table webhooks drop column previous_secret_sealed;
      alter table webhooks drop column previous_expires_at;
      drop table retencion_duplicate_stamps;
      drop table retencion_stamp_attempts;
      drop table retencion_emails;
      drop table retencion_documents;
      drop table retenciones;
      delete from __drizzle_migrations where created_at >= ${MIGRATION_0020_AT};
    `);
    raw.close();

    const db = openDatabase(path);
    const after = await createTestApp({ db });
    const columns = (id: string) =>
      sqliteConnection(db)
        .prepare(
          "select failure_reason as reason, withdrawn_at as at, json_type(summary, '$.error') as error, json_type(summary, '$.withdrawn_at') as inSummary, status from cfdis where id = ?",
        )
        .get(id);
    expect(columns(rejectedId)).toEqual({ reason: rejected.json.error.details[0].issue, at: null, error: null, inSummary: null, status: 'fallido' });
    expect(columns(queued.json.id)).toEqual({
      reason: 'withdrawn before stamping',
      at: withdrawn.json.withdrawn_at,
      error: null,
      inSummary: null,
      status: 'fallido',
    });
    expect(await reads(after)).toEqual(read);

    // The reason answers a retry after a crash as it did before (422 from the stored invoice).
    await after.exec(sql`update idempotency_keys set status = 0, body = ${Buffer.alloc(0)} where key = 'rejected'`);
    const retried = await after.call('POST', '/cfdis', { token: key, body: invoice, headers: { 'idempotency-key': 'rejected' } });
    expect(retried.status).toBe(422);
    expect(retried.json.error.details).toEqual(rejected.json.error.details);

    // An attempt that was in flight when it was withdrawn stamps it: vigente, the reason cleared, the withdrawal kept.
    const xml = (await after.query<{ xml: Buffer }>(sql`select xml from cfdi_documents where cfdi_id = ${queued.json.id}`))[0]!.xml.toString('utf8');
    const result = await createSandboxPac(testSandboxSat()).stamp(xml, { tenantId: reg.tenant.id });
    if (!result.ok) throw new Error(result.message);
    const values = await withTransaction(db, { isolation: 'serializable' }, (tx) =>
      recordStamp(tx, { id: queued.json.id, tenantId: reg.tenant.id, environment: 'test' }, result, new Date(), 'sandbox'),
    );
    expect(values?.uuid).toBe(result.tfd.uuid);
    expect(columns(queued.json.id)).toEqual({ reason: null, at: withdrawn.json.withdrawn_at, error: null, inSummary: null, status: 'vigente' });
    const got = (await after.call('GET', `/cfdis/${queued.json.id}`, { token: key })).json;
    expect(got).toMatchObject({ status: 'vigente', uuid: result.tfd.uuid, fecha_timbrado: values!.fechaTimbrado, ...values!.tfd });
  });
});
