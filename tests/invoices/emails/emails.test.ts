import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { executeSql, withTransaction } from '../../../src/db/index.ts';
import { cfdiEmails, cfdis, jobs } from '../../../src/db/schema/index.ts';
import { openReceipt } from '../../portal/receipts.ts';
import {
  createTestApp,
  eventReceiver,
  ICV,
  ingreso,
  type Issuer,
  issuer,
  READY,
  smtpSink,
  type SmtpAnswer,
  TENANTS,
  TEST_ENGINE,
  until,
} from '../../helpers.ts';

const LOGO = readFileSync(new URL('../../fixtures/branding/logo.png', import.meta.url));
const sinks: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of sinks) await s.close();
});

/** The addresses the tests email: users of the tenant, as a test-mode email's recipients must be. */
const USERS = ['ana@example.com', 'compras@example.com', 'conta@example.com', 'pagos@icv.example.com', 'nadie@example.com', 'otra@example.com'];

/**
 * An app emailing through a fresh sink that answers as told, with the queue stepped by hand, and a tenant ready to
 * stamp whose users have the USERS addresses.
 */
async function setup(answers: SmtpAnswer[] = [], o: { smtp?: false; users?: string[] } = {}) {
  const sink = await smtpSink(answers);
  sinks.push(sink);
  const t = await createTestApp({ wakeOnEnqueue: false, webhookAllowPrivate: true, ...(o.smtp === false ? {} : { smtp: sink.smtp }) });
  const reg = await issuer(t, READY);
  for (const email of o.users ?? USERS) await addUser(reg, email);
  const key = reg.key;
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.call(method, path, { token: key, body, headers });
  const bytes = async (path: string) =>
    Buffer.from(await (await t.app.request(`/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer());
  const events = async () =>
    (
      await t.query<{ type: string; data: unknown }>(
        sql`select type, data from events where tenant_id = ${reg.tenant.id} and type like ${'cfdi.email%'} order by id`,
      )
    ).map((e) => ({ type: e.type, data: typeof e.data === 'string' ? JSON.parse(e.data) : e.data }));
  const emails = async (id: string) => {
    const res = await call('GET', `/cfdis/${id}/emails`);
    expect(res.status).toBe(200);
    return res.json.data as any[];
  };
  return { t, sink, reg, key, call, bytes, events, emails };
}

async function addUser(reg: { api: Issuer['api']; token: string }, email: string) {
  const res = await reg.api('POST', '/users', { token: reg.token, body: { email, password: 'another-long-password', nombre: 'Usuario', role: 'OPERATOR' } });
  expect(res.status).toBe(201);
}

const attachment = (mail: { attachments: { filename?: string; content: Buffer }[] }, filename: string) =>
  mail.attachments.find((a) => a.filename === filename)?.content;

describe('emailing a CFDI', () => {
  test('email_to on POST /cfdis: once stamped, one message with <uuid>.xml and <uuid>.pdf equal to GET /xml and /pdf, in Spanish, sent', async () => {
    const { t, sink, reg, call, bytes, events, emails } = await setup();
    const res = await call('POST', '/cfdis', ingreso({ email_to: ['Compras@Example.com', 'compras@example.com', 'conta@example.com'] }));
    expect(res.status).toBe(201);
    const { id, uuid } = res.json;
    const [queued] = await emails(id);
    expect(queued).toMatchObject({ cfdi_id: id, status: 'queued', attempts: 0, to: ['compras@example.com', 'conta@example.com'], sent_at: null });
    expect(sink.received).toHaveLength(0);

    await t.app.worker.drain();
    expect(sink.received).toHaveLength(1);
    const mail = sink.received[0]!;
    expect(mail.to && !Array.isArray(mail.to) && mail.to.value.map((a) => a.address)).toEqual(['compras@example.com', 'conta@example.com']);
    expect(mail.from?.value[0]).toEqual({ name: 'ESCUELA KEMPER URGATE vía Facturación', address: 'facturas@example.com' });
    expect(mail.subject).toBe('Factura Serie A Folio 1 de ESCUELA KEMPER URGATE');
    for (const part of [mail.text!, mail.html as string]) {
      expect(part).toContain('ESCUELA KEMPER URGATE');
      expect(part).toContain('Serie A · Folio 1');
      expect(part).toContain('$116.00 MXN');
      expect(part).toContain(uuid);
      expect(part).toContain('sin validez fiscal');
    }
    expect(mail.text).toContain('le envía su factura');
    expect(mail.attachments.map((a) => [a.filename, a.contentType]).sort()).toEqual([
      [`${uuid}.pdf`, 'application/pdf'],
      [`${uuid}.xml`, 'application/xml'],
    ]);
    expect(attachment(mail, `${uuid}.xml`)!.equals(await bytes(`/cfdis/${uuid}/xml`))).toBe(true);
    expect(attachment(mail, `${uuid}.pdf`)!.equals(await bytes(`/cfdis/${uuid}/pdf`))).toBe(true);
    expect(sink.logins).toEqual(['sink-user:sink pass']); // SMTP_URL's credentials, percent-decoded

    const [sent] = await emails(uuid); // by UUID too
    expect(sent).toMatchObject({ id: queued.id, status: 'sent', attempts: 1 });
    expect(sent.last_response).toContain('250');
    expect(sent.sent_at).toBe(t.clock.now.toISOString());
    expect(await events()).toEqual([
      {
        type: 'cfdi.email_enviado',
        data: {
          cfdi_id: id,
          uuid,
          email_id: queued.id,
          to: ['compras@example.com', 'conta@example.com'],
          attempts: 1,
          last_response: sent.last_response,
          external_id: null,
          metadata: {},
        },
      },
    ]);
    // Sent once: the job is done, another drain sends nothing.
    t.clock.advance(3_600_000);
    await t.app.worker.drain();
    expect(sink.received).toHaveLength(1);
    expect(await t.count(jobs, eq(jobs.type, 'cfdi.email'))).toBe(1);
    expect(reg.tenant.id).toBeString();
  });

  test("POST /cfdis/{id}/email: 202 with the record; the tenant's logo and colour in the message", async () => {
    const { t, sink, key, call, emails } = await setup();
    expect((await call('PATCH', '/tenants/me', { accent_color: '#AA3311' })).status).toBe(200);
    const form = new FormData();
    form.append('logo', new Blob([new Uint8Array(LOGO)], { type: 'image/png' }), 'logo.png');
    expect((await t.app.request('/api/v1/tenants/me/logo', { method: 'PUT', headers: { authorization: `Bearer ${key}` }, body: form })).status).toBe(200);
    const cfdi = (await call('POST', '/cfdis', ingreso())).json;
    const res = await call('POST', `/cfdis/${cfdi.id}/email`, { to: ['ana@example.com'] });
    expect(res.status).toBe(202);
    expect(Object.keys(res.json).sort()).toEqual(['attempts', 'cfdi_id', 'created_at', 'id', 'last_response', 'sent_at', 'status', 'to', 'updated_at']);
    expect(res.json).toMatchObject({ cfdi_id: cfdi.id, to: ['ana@example.com'], status: 'queued', attempts: 0, last_response: null });
    expect(res.json.id).toMatch(/^eml_/);
    await t.app.worker.drain();
    const mail = sink.received[0]!;
    expect(mail.html).toContain('#AA3311');
    const logo = mail.attachments.find((a) => a.cid === 'logo');
    expect(logo?.content.equals(LOGO)).toBe(true);
    // The HTML shows it by Content-ID (mailparser inlines such a reference as a data: URL).
    expect(mail.html).toContain(`<img src="data:image/png;base64,${LOGO.toString('base64').slice(0, 64)}`);
    expect((await emails(cfdi.id))[0]).toMatchObject({ status: 'sent', attempts: 1 });
  });

  test('an SMTP server that answers 4xx, then 2xx: retried with backoff, the message arrives exactly once', async () => {
    const { t, sink, call, emails, events } = await setup([{ code: 451, message: '4.7.1 Greylisted, try again later' }]);
    const cfdi = (await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }))).json;
    await t.app.worker.drain();
    expect(sink.attempts()).toBe(1);
    expect(sink.received).toHaveLength(0);
    const [waiting] = await emails(cfdi.id);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1, sent_at: null });
    expect(waiting.last_response).toContain('451');
    expect(waiting.last_response).toContain('Greylisted');
    expect(await events()).toEqual([]);
    // Not due before its backoff: a drain now sends nothing.
    await t.app.worker.drain();
    expect(sink.attempts()).toBe(1);

    t.clock.advance(10 * 60_000);
    await t.app.worker.drain();
    t.clock.advance(10 * 60_000);
    await t.app.worker.drain();
    expect(sink.attempts()).toBe(2);
    expect(sink.received).toHaveLength(1);
    const [sent] = await emails(cfdi.id);
    expect(sent).toMatchObject({ status: 'sent', attempts: 2 });
    expect(sent.last_response).toContain('250');
    expect((await events()).map((e) => e.type)).toEqual(['cfdi.email_enviado']);
  });

  test("a 5xx ends it as failed with the server's answer; cfdi.email_fallido reaches a webhook", async () => {
    const { t, sink, call, emails, events } = await setup([{ code: 550, message: '5.1.1 Mailbox unavailable' }]);
    const receiver = eventReceiver();
    try {
      expect((await call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['cfdi.email_fallido'] })).status).toBe(201);
      const cfdi = (await call('POST', '/cfdis', ingreso({ email_to: ['nadie@example.com'] }))).json;
      await t.app.worker.drain();
      const [failed] = await emails(cfdi.id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1, sent_at: null });
      expect(failed.last_response).toContain('550');
      expect(failed.last_response).toContain('Mailbox unavailable');
      expect(sink.received).toHaveLength(0);
      expect(await events()).toEqual([
        {
          type: 'cfdi.email_fallido',
          data: {
            cfdi_id: cfdi.id,
            uuid: cfdi.uuid,
            email_id: failed.id,
            to: ['nadie@example.com'],
            attempts: 1,
            last_response: failed.last_response,
            external_id: null,
            metadata: {},
          },
        },
      ]);
      await t.app.worker.drain(); // the webhook delivery
      expect(receiver.received.map((e) => [e.event, e.data.email_id])).toEqual([['cfdi.email_fallido', failed.id]]);
      // Given up: no more attempts.
      t.clock.advance(3_600_000);
      await t.app.worker.drain();
      expect(sink.attempts()).toBe(1);
    } finally {
      receiver.stop();
    }
  });

  test('stamped later from the queue (pac_unavailable): queued without a job, sent once stamped', async () => {
    const { t, sink, call, emails, bytes } = await setup();
    const res = await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }), { 'x-sandbox-scenario': 'pac_unavailable' });
    expect(res.status).toBe(202);
    const [waiting] = await emails(res.json.id);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
    expect(await t.count(jobs, eq(jobs.type, 'cfdi.email'))).toBe(0);
    // POST /cfdis/{id}/email while queued waits for the stamp too.
    expect((await call('POST', `/cfdis/${res.json.id}/email`, { to: ['otra@example.com'] })).status).toBe(202);
    expect(await t.count(jobs, eq(jobs.type, 'cfdi.email'))).toBe(0);
    expect(sink.received).toHaveLength(0);

    // The stamping job is due at once (the provider answered "unavailable"): a drain stamps it, queueing both
    // sendings, which the email pool drained beside it may already send; the next drain sends what is left.
    t.clock.advance(5_000);
    await t.app.worker.drain();
    await t.app.worker.drain();
    const cfdi = (await call('GET', `/cfdis/${res.json.id}`)).json;
    expect(cfdi.status).toBe('vigente');
    expect(sink.received.map((m) => (Array.isArray(m.to) ? '' : m.to?.text)).sort()).toEqual(['ana@example.com', 'otra@example.com']);
    for (const mail of sink.received) {
      expect(attachment(mail, `${cfdi.uuid}.xml`)!.equals(await bytes(`/cfdis/${cfdi.uuid}/xml`))).toBe(true);
      expect(attachment(mail, `${cfdi.uuid}.pdf`)!.equals(await bytes(`/cfdis/${cfdi.uuid}/pdf`))).toBe(true);
    }
    expect((await emails(cfdi.id)).map((e) => e.status)).toEqual(['sent', 'sent']);
  });

  // SQLite runs one writer at a time: the interleaving below cannot happen there.
  test.skipIf(TEST_ENGINE !== 'postgres')(
    "POST /email holds the invoice's row until it commits (PostgreSQL): a stamp recorded read committed meanwhile waits, then queues the sending",
    async () => {
      const { t, sink, call, emails } = await setup();
      const res = await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }), { 'x-sandbox-scenario': 'pac_unavailable' });
      expect(res.status).toBe(202);
      const id = res.json.id as string;
      const tenantId = (await t.query<{ tenant_id: string }>(sql`select tenant_id from cfdis where id = ${id}`))[0]!.tenant_id;
      // The tenant's email budget row held by another transaction: POST /email stops there, after it read the
      // invoice (unstamped) and before it commits.
      const gate = Promise.withResolvers<void>();
      const held = Promise.withResolvers<void>();
      const holding = withTransaction(t.db, { isolation: 'read committed', name: 'test.hold' }, async (tx) => {
        await executeSql(tx, sql`select 1 from email_budgets where tenant_id = ${tenantId} for update`);
        held.resolve();
        await gate.promise;
      });
      await held.promise;
      const emailing = call('POST', `/cfdis/${id}/email`, { to: ['otra@example.com'] });
      await until(
        async () =>
          (
            await t.query<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`)
          )[0]!.n >= 1,
        'POST /email waits for the budget row',
      );
      // What the synchronous stamp's read-committed transaction does first, the move of the invoice's row, cannot
      // happen before POST /email commits: its read of the waiting sendings then sees this one.
      const move = withTransaction(t.db, { isolation: 'read committed', name: 'test.move' }, async (tx) => {
        await executeSql(tx, sql`set local lock_timeout = '300ms'`);
        await executeSql(tx, sql`update cfdis set updated_at = updated_at where id = ${id}`);
      });
      expect(
        await move.then(
          () => 'moved',
          (err: unknown) => String((err as { cause?: { code?: string } }).cause?.code ?? err),
        ),
      ).toBe('55P03');
      gate.resolve();
      await holding;
      expect((await emailing).status).toBe(202);
      t.clock.advance(5_000);
      await t.app.worker.drain();
      await t.app.worker.drain();
      expect((await call('GET', `/cfdis/${id}`)).json.status).toBe('vigente');
      expect((await emails(id)).map((e) => [e.to, e.status])).toEqual([
        [['otra@example.com'], 'sent'],
        [['ana@example.com'], 'sent'],
      ]);
      expect(sink.received).toHaveLength(2);
    },
  );

  test('a CFDI that fails to stamp: its waiting email fails with the reason, and POST /email is 409', async () => {
    const { call, emails, events } = await setup();
    const res = await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }), { 'x-sandbox-scenario': 'pac_rejected' });
    expect(res.status).toBe(422);
    const [row] = await call('GET', '/cfdis').then((r) => r.json.data);
    const [failed] = await emails(row.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 0 });
    expect(failed.last_response).toContain('not stamped');
    expect((await events()).map((e) => e.type)).toEqual(['cfdi.email_fallido']);
    const again = await call('POST', `/cfdis/${row.id}/email`, { to: ['ana@example.com'] });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain('fallido');
  });

  test("a cancelled CFDI goes with SAT's acuse; the PDF carries the cancelled mark as GET /pdf does", async () => {
    const { t, sink, call, bytes } = await setup();
    const cfdi = (await call('POST', '/cfdis', ingreso())).json;
    expect((await call('POST', `/cfdis/${cfdi.id}/cancel`, { motivo: '02' })).status).toBe(200);
    expect((await call('POST', `/cfdis/${cfdi.uuid}/email`, { to: ['ana@example.com'] })).status).toBe(202);
    await t.app.worker.drain();
    const mail = sink.received[0]!;
    expect(mail.subject).toStartWith('Cancelado: Factura');
    expect(mail.text).toContain('cancelado ante el SAT');
    expect(mail.attachments.map((a) => a.filename).sort()).toEqual([`${cfdi.uuid}-acuse.xml`, `${cfdi.uuid}.pdf`, `${cfdi.uuid}.xml`]);
    expect(attachment(mail, `${cfdi.uuid}-acuse.xml`)!.equals(await bytes(`/cfdis/${cfdi.id}/cancellation/acuse.xml`))).toBe(true);
    expect(attachment(mail, `${cfdi.uuid}.pdf`)!.equals(await bytes(`/cfdis/${cfdi.uuid}/pdf`))).toBe(true);
    expect(attachment(mail, `${cfdi.uuid}.xml`)!.equals(await bytes(`/cfdis/${cfdi.uuid}/xml`))).toBe(true);
  });

  test('without to: the email of the receptor_id client; no address at all is 400 naming to', async () => {
    const { t, sink, call } = await setup();
    const client = (await call('POST', '/clients', { ...ICV, email: 'Pagos@ICV.example.com' })).json;
    const bare = (await call('POST', '/clients', ICV)).json;
    const toClient = (await call('POST', '/cfdis', { ...ingreso({ receptor: undefined }), receptor_id: client.id })).json;
    const res = await call('POST', `/cfdis/${toClient.id}/email`, {});
    expect(res.status).toBe(202);
    expect(res.json.to).toEqual(['pagos@icv.example.com']);
    await t.app.worker.drain();
    expect(sink.received[0]!.to && !Array.isArray(sink.received[0]!.to) && sink.received[0]!.to.text).toBe('pagos@icv.example.com');

    const noEmail = (await call('POST', '/cfdis', { ...ingreso({ receptor: undefined }), receptor_id: bare.id })).json;
    const inline = (await call('POST', '/cfdis', ingreso())).json;
    for (const id of [noEmail.id, inline.id]) {
      const refused = await call('POST', `/cfdis/${id}/email`, {});
      expect(refused.status).toBe(400);
      expect(refused.json.error.details[0].field).toBe('to');
    }
    expect(await t.count(cfdiEmails)).toBe(1);
  });

  test('bad addresses are 400 naming the field, and nothing is issued or queued', async () => {
    const { t, call } = await setup();
    const bad = await call('POST', '/cfdis', ingreso({ email_to: ['not-an-address'] }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('email_to[0]');
    const many = await call('POST', '/cfdis', ingreso({ email_to: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) }));
    expect(many.status).toBe(400);
    expect(many.json.error.details[0].field).toBe('email_to');
    expect(await t.count(cfdis)).toBe(0);
    const cfdi = (await call('POST', '/cfdis', ingreso())).json;
    for (const body of [{ to: [] }, { to: ['x'] }, { to: 'ana@example.com' }, { cc: ['ana@example.com'] }]) {
      const res = await call('POST', `/cfdis/${cfdi.id}/email`, body);
      expect(res.status).toBe(400);
    }
    expect(await t.count(cfdiEmails)).toBe(0);
  });

  test('without SMTP_URL: email_to and POST /email are 400 naming the field, nothing is stored or queued; the listing is 200', async () => {
    const { t, call, emails } = await setup([], { smtp: false });
    const issued = await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }));
    expect(issued.status).toBe(400);
    expect(issued.json.error.message).toBe('Email is not configured on this server');
    expect(issued.json.error.details).toEqual([{ field: 'email_to', issue: expect.stringContaining('this server has no SMTP configured') }]);
    expect(await t.count(cfdis)).toBe(0);
    // The dry run says so too, naming email_to.
    const validated = await call('POST', '/cfdis/validate', ingreso({ email_to: ['ana@example.com'] }));
    expect(validated.json.valid).toBe(false);
    expect(validated.json.errors).toEqual([{ field: 'email_to', issue: expect.stringContaining('would answer 400') }]);
    expect((await call('POST', '/cfdis/validate', ingreso())).json.valid).toBe(true);
    const cfdi = (await call('POST', '/cfdis', ingreso())).json;
    const jobsBefore = await t.count(jobs);
    const res = await call('POST', `/cfdis/${cfdi.id}/email`, { to: ['ana@example.com'] });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 'to', issue: expect.stringContaining('this server has no SMTP configured') }]);
    expect(await emails(cfdi.id)).toEqual([]);
    expect(await t.count(cfdiEmails)).toBe(0);
    expect(await t.count(jobs)).toBe(jobsBefore);
  });

  test('emails queued while SMTP_URL was set, run by an instance without it: failed, saying so', async () => {
    const { t, sink, call, emails, events } = await setup();
    const cfdi = (await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }))).json;
    const without = await createTestApp({ db: t.db, wakeOnEnqueue: false });
    await without.app.worker.drain();
    const [failed] = await emails(cfdi.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.last_response).toContain('SMTP_URL is not set');
    expect((await events()).map((e) => e.type)).toEqual(['cfdi.email_fallido']);
    expect(sink.attempts()).toBe(0);
  });

  test("another tenant's CFDI is 404 on both routes, and nothing is queued", async () => {
    const { t, call } = await setup();
    const other = await issuer(t, { ...READY, tenant: TENANTS.FUNK });
    const theirs = (await t.call('POST', '/cfdis', { token: other.key, body: ingreso({ email_to: [other.email] }) })).json;
    expect(theirs.uuid).toBeString();
    const before = await t.count(cfdiEmails);
    for (const ref of [theirs.id, theirs.uuid]) {
      expect((await call('POST', `/cfdis/${ref}/email`, { to: ['intruso@example.com'] })).status).toBe(404);
      expect((await call('GET', `/cfdis/${ref}/emails`)).status).toBe(404);
    }
    expect(await t.count(cfdiEmails)).toBe(before);
    // Its own listing shows only its own.
    expect((await t.call('GET', `/cfdis/${theirs.id}/emails`, { token: other.key })).json.data).toHaveLength(1);
  });
});

describe("the tenant's reply_to", () => {
  const replyTo = (mail: { replyTo?: { value: { address?: string }[] } }) => mail.replyTo?.value.map((a) => a.address);

  test('PATCH /tenants/me reply_to: shown by GET, the Reply-To of every CFDI email from then on; null removes it', async () => {
    const { t, sink, call } = await setup();
    expect((await call('GET', '/tenants/me')).json.reply_to).toBeNull();
    const patched = await call('PATCH', '/tenants/me', { reply_to: ' Facturacion@Kemper.example.com ' });
    expect(patched.status).toBe(200);
    expect(patched.json.reply_to).toBe('facturacion@kemper.example.com');
    expect((await call('GET', '/tenants/me')).json.reply_to).toBe('facturacion@kemper.example.com');

    await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }));
    await t.app.worker.drain();
    expect(sink.received).toHaveLength(1);
    expect(replyTo(sink.received[0]!)).toEqual(['facturacion@kemper.example.com']);
    // The sender stays the server's address, with the tenant's name.
    expect(sink.received[0]!.from?.value[0]).toEqual({ name: 'ESCUELA KEMPER URGATE vía Facturación', address: 'facturas@example.com' });

    expect((await call('PATCH', '/tenants/me', { reply_to: null })).json.reply_to).toBeNull();
    await call('POST', '/cfdis', ingreso({ email_to: ['ana@example.com'] }));
    await t.app.worker.drain();
    expect(sink.received).toHaveLength(2);
    expect(sink.received[1]!.replyTo).toBeUndefined();
  });

  test('an address email_to would refuse is 422 naming reply_to, and the profile keeps its value', async () => {
    const { call } = await setup();
    expect((await call('PATCH', '/tenants/me', { reply_to: 'ok@example.com' })).status).toBe(200);
    for (const bad of ['not-an-address', 'a@b', 'x@example.com\r\nBcc: victim@example.com', '', 42, `${'a'.repeat(250)}@example.com`]) {
      const res = await call('PATCH', '/tenants/me', { reply_to: bad });
      expect(res.status).toBe(422);
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(['reply_to']);
    }
    expect((await call('GET', '/tenants/me')).json.reply_to).toBe('ok@example.com');
  });
});

describe('test mode: only to the tenant’s users, or to the operator’s capture mailbox', () => {
  test('a test-mode email to anyone but a user of the tenant is 400 naming the field, on every route, and nothing is issued or queued', async () => {
    const { t, sink, reg, call, emails } = await setup([], { users: [] });
    const client = (await call('POST', '/clients', { ...ICV, email: 'pagos@icv.example.com' })).json;
    const issued = await call('POST', '/cfdis', ingreso({ email_to: [reg.email, 'victima@example.com'] }));
    expect(issued.status).toBe(400);
    expect(issued.json.error.details).toEqual([
      { field: 'email_to', issue: expect.stringContaining('victima@example.com is not the email of a user of this tenant') },
    ]);
    expect(await t.count(cfdis)).toBe(0);
    const cfdi = (await call('POST', '/cfdis', { ...ingreso({ receptor: undefined }), receptor_id: client.id })).json;
    for (const body of [{ to: ['victima@example.com'] }, {}]) {
      const res = await call('POST', `/cfdis/${cfdi.id}/email`, body);
      expect(res.status).toBe(400);
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(['to']);
    }
    expect(await t.count(cfdiEmails)).toBe(0);
    // Its own users' addresses (any case) are fine: the user sees what its customers will get.
    const own = await call('POST', `/cfdis/${cfdi.id}/email`, { to: [reg.email.toUpperCase()] });
    expect(own.status).toBe(202);
    await t.app.worker.drain();
    expect(sink.received.map((m) => !Array.isArray(m.to) && m.to?.text)).toEqual([reg.email]);
    expect((await emails(cfdi.id))[0]).toMatchObject({ status: 'sent' });
  });

  test('EMAIL_TEST_CAPTURE: any address is taken, and every test-mode message goes to the capture mailbox alone', async () => {
    const sink = await smtpSink();
    sinks.push(sink);
    const t = await createTestApp({ wakeOnEnqueue: false, smtp: { ...sink.smtp, testCapture: 'captura@operador.example.com' } });
    const reg = await issuer(t, READY);
    const res = await t.call('POST', '/cfdis', { token: reg.key, body: ingreso({ email_to: ['cliente@example.com', 'otro@example.com'] }) });
    expect(res.status).toBe(201);
    await t.app.worker.drain();
    expect(sink.received).toHaveLength(1);
    const mail = sink.received[0]!;
    expect(!Array.isArray(mail.to) && mail.to?.value.map((a) => a.address)).toEqual(['captura@operador.example.com']);
    expect(mail.cc).toBeUndefined();
    expect(mail.bcc).toBeUndefined();
    // The record keeps what was asked.
    expect((await t.call('GET', `/cfdis/${res.json.id}/emails`, { token: reg.key })).json.data[0]).toMatchObject({
      to: ['cliente@example.com', 'otro@example.com'],
      status: 'sent',
    });
  });
});

describe('test mode on the receipts and the portal', () => {
  const RECEPTOR = { rfc: ICV.rfc, nombre: ICV.nombre, domicilio_fiscal: ICV.domicilio_fiscal, regimen_fiscal: ICV.regimen_fiscal, uso_cfdi: ICV.uso_cfdi };
  const ticketInvoice = async (t: Awaited<ReturnType<typeof createTestApp>>, tenantId: string, body: unknown) => {
    const res = await t.app.request(`/portal/${tenantId}/ticket/invoice`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  test("a receipt's email_to is held to the same rule; a test ticket's customer is not emailed without a capture mailbox", async () => {
    const { t, sink, reg, call } = await setup([], { users: [] });
    const receipt = await openReceipt(reg);
    const refused = await call('POST', `/receipts/${receipt.id}/invoice`, { receptor: ICV, email_to: ['cliente@example.com'] });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details[0].field).toBe('email_to');
    const ticket = await openReceipt(reg);
    const issued = await ticketInvoice(t, reg.tenant.id, { clave: ticket.key, receptor: RECEPTOR, email: 'cliente@example.com' });
    expect(issued.status).toBe(201);
    expect(issued.json.email).toEqual({ status: 'unavailable', to: 'cliente@example.com' });
    expect(await t.count(cfdiEmails)).toBe(0);
    await t.app.worker.drain();
    expect(sink.received).toHaveLength(0);
  });

  test('with EMAIL_TEST_CAPTURE a test ticket is emailed, to the capture mailbox', async () => {
    const sink = await smtpSink();
    sinks.push(sink);
    const t = await createTestApp({ wakeOnEnqueue: false, smtp: { ...sink.smtp, testCapture: 'captura@operador.example.com' } });
    const reg = await issuer(t, READY);
    const ticket = await openReceipt(reg);
    const issued = await ticketInvoice(t, reg.tenant.id, { clave: ticket.key, receptor: RECEPTOR, email: 'cliente@example.com' });
    expect(issued.json.email).toEqual({ status: 'queued', to: 'cliente@example.com' });
    await t.app.worker.drain();
    expect(sink.received.map((m) => !Array.isArray(m.to) && m.to?.text)).toEqual(['captura@operador.example.com']);
  });

  test("past the issuer's budget the portal says so in Spanish, naming email, and the ticket is still open to invoice without it", async () => {
    const sink = await smtpSink();
    sinks.push(sink);
    const t = await createTestApp({ wakeOnEnqueue: false, smtp: { ...sink.smtp, dailyLimit: 1, testCapture: 'captura@operador.example.com' } });
    const reg = await issuer(t, { keys: ['test'], csd: true, plan: 'sandbox' });
    expect((await t.call('POST', '/cfdis', { token: reg.key, body: ingreso({ email_to: ['a@example.com'] }) })).status).toBe(201);
    const ticket = await openReceipt(reg);
    const refused = await ticketInvoice(t, reg.tenant.id, { clave: ticket.key, receptor: RECEPTOR, email: 'cliente@example.com' });
    expect(refused.status).toBe(429);
    expect(refused.json.error.details).toEqual([{ field: 'email', issue: expect.stringContaining('todos los correos que puede') }]);
    const issued = await ticketInvoice(t, reg.tenant.id, { clave: ticket.key, receptor: RECEPTOR });
    expect(issued.status).toBe(201);
  });
});

describe('email budgets', () => {
  /** A sandbox-plan tenant (EMAIL_DAILY_LIMIT × 1) on an app whose EMAIL_DAILY_LIMIT is `dailyLimit`, emailing through a capture. */
  async function budgeted(dailyLimit: number) {
    const sink = await smtpSink();
    sinks.push(sink);
    const t = await createTestApp({ wakeOnEnqueue: false, smtp: { ...sink.smtp, dailyLimit, testCapture: 'captura@operador.example.com' } });
    const reg = await issuer(t, { keys: ['test'], csd: true, plan: 'sandbox' });
    const call = (method: string, path: string, body?: unknown) => t.call(method, path, { token: reg.key, body });
    return { t, reg, call };
  }
  const to = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `c${from + i}@example.com`);

  test('the daily budget counts recipients per tenant and UTC day: 429 naming it, its limit and reset, with Retry-After; the plan raises it', async () => {
    const { t, reg, call } = await budgeted(5);
    t.clock.now = new Date('2026-11-27T22:00:00.000Z');
    const cfdi = (await call('POST', '/cfdis', ingreso({ email_to: to(3) }))).json;
    expect(cfdi.uuid).toBeString();
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(2, 3) })).status).toBe(202);
    const refused = await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(1, 5) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7200');
    expect(refused.json.error.message).toBe(
      'Email budget used up (email_daily): 5 recipients per UTC day for this tenant (plan sandbox; EMAIL_DAILY_LIMIT raised by the plan)',
    );
    expect(refused.json.error.details).toEqual([
      {
        field: 'to',
        issue: expect.stringMatching(/^budget email_daily: 5 recipients .*; 5 used today, this message adds 1; resets at 2026-11-28T00:00:00\.000Z$/),
      },
    ]);
    // email_to on POST /cfdis is refused the same way, and nothing is issued.
    const cfdisBefore = await t.count(cfdis);
    const issued = await call('POST', '/cfdis', ingreso({ email_to: to(1) }));
    expect(issued.status).toBe(429);
    expect(issued.json.error.details[0].field).toBe('email_to');
    expect(await t.count(cfdis)).toBe(cfdisBefore);
    expect(await t.count(cfdiEmails)).toBe(2);
    // More recipients in one message than the budget holds: refused as well.
    t.clock.now = new Date('2026-11-28T00:00:01.000Z');
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(6) })).status).toBe(429);
    // A new UTC day starts the count again.
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(5) })).status).toBe(202);
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(1) })).status).toBe(429);
    // starter: five times EMAIL_DAILY_LIMIT.
    await reg.setPlan('starter');
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(10) })).status).toBe(202);
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(10) })).status).toBe(202);
    const over = await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(1) });
    expect(over.status).toBe(429);
    expect(over.json.error.message).toContain('25 recipients per UTC day for this tenant (plan starter');
  });

  test('one CFDI is emailed at most 5 times a UTC day: the 6th is 429 naming the cfdi_daily budget; another CFDI still goes', async () => {
    const { t, call } = await budgeted(200);
    t.clock.now = new Date('2026-11-27T12:00:00.000Z');
    const cfdi = (await call('POST', '/cfdis', ingreso({ email_to: to(1) }))).json;
    for (let i = 0; i < 4; i++) expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(1) })).status).toBe(202);
    const refused = await call('POST', `/cfdis/${cfdi.uuid}/email`, { to: to(1) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('43200');
    expect(refused.json.error.message).toBe('Email budget used up (cfdi_daily): 5 sendings of one CFDI per UTC day');
    expect(refused.json.error.details).toEqual([
      {
        field: 'to',
        issue: `budget cfdi_daily: 5 sendings of one CFDI per UTC day; CFDI ${cfdi.id} has been emailed 5 times today; resets at 2026-11-28T00:00:00.000Z`,
      },
    ]);
    const other = (await call('POST', '/cfdis', ingreso())).json;
    expect((await call('POST', `/cfdis/${other.id}/email`, { to: to(1) })).status).toBe(202);
    t.clock.now = new Date('2026-11-28T00:00:00.000Z');
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: to(1) })).status).toBe(202);
  });

  test('concurrent sendings never pass the daily budget together: exactly the budget is queued', async () => {
    const { t, call } = await budgeted(6);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await call('POST', '/cfdis', ingreso())).json.id);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call('POST', `/cfdis/${ids[i % 4]}/email`, { to: to(1, i) })));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(6).fill(202), ...Array(6).fill(429)]);
    expect(await t.count(cfdiEmails)).toBe(6);
  });
});

describe('the sender', () => {
  test('From shows "<tenant> vía <operator>", the tenant’s name without quotes, <, >, @ or commas', async () => {
    const { t, sink, reg, call } = await setup();
    const cfdi = (await call('POST', '/cfdis', ingreso())).json;
    const nombre = 'Soporte "PayPal" <security@paypal.com>, Inc;';
    expect((await reg.api('PATCH', '/tenants/me', { token: reg.token, body: { nombre } })).status).toBe(200);
    expect((await call('POST', `/cfdis/${cfdi.id}/email`, { to: ['ana@example.com'] })).status).toBe(202);
    await t.app.worker.drain();
    expect(sink.received[0]!.from?.value).toEqual([{ name: 'Soporte PayPal security paypal.com Inc vía Facturación', address: 'facturas@example.com' }]);
  });
});

describe('email fairness', () => {
  test("one tenant's backlog on a slow SMTP server does not hold another tenant's email: B's goes out with A's first ones", async () => {
    const sink = await smtpSink([], { delayMs: 150 });
    sinks.push(sink);
    const t = await createTestApp({ wakeOnEnqueue: false, smtp: { ...sink.smtp, testCapture: 'captura@operador.example.com' } });
    const a = await issuer(t, READY);
    const b = await issuer(t, { ...READY, tenant: TENANTS.FUNK });
    // A queues 12 emails (3 CFDIs, 4 each), then B one: more than the pool's 8 connections.
    for (let i = 0; i < 3; i++) {
      const cfdi = (await t.call('POST', '/cfdis', { token: a.key, body: ingreso({ email_to: ['a@example.com'] }) })).json;
      for (let j = 0; j < 3; j++) expect((await t.call('POST', `/cfdis/${cfdi.id}/email`, { token: a.key, body: { to: ['a@example.com'] } })).status).toBe(202);
    }
    const theirs = (await t.call('POST', '/cfdis', { token: b.key, body: ingreso({ email_to: ['b@example.com'] }) })).json;
    expect(theirs.uuid).toBeString();
    await t.app.worker.drain();
    const senders = sink.received.map((m) => m.from?.value[0]?.name ?? '');
    expect(senders).toHaveLength(13);
    const position = senders.findIndex((name) => name.startsWith(TENANTS.FUNK.nombre));
    // A's lane takes 2 of the 8 connections, so B's email is taken in the first round, among A's first ones. Without
    // the lane cap A's first 8 take every connection and B waits for the second round: 9th at best. On a busy machine
    // B's own connection and PDF may finish a few of A's rounds later (7th seen), never behind A's first 8.
    expect(position).toBeGreaterThanOrEqual(0);
    expect(position).toBeLessThan(8);
  });
});
