import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { cfdiEmails, cfdis, jobs } from '../../../src/db/schema/index.ts';
import { createTestApp, eventReceiver, ICV, ingreso, issuer, READY, smtpSink, type SmtpAnswer, TENANTS } from '../../helpers.ts';

const LOGO = readFileSync(new URL('../../fixtures/branding/logo.png', import.meta.url));
const sinks: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of sinks) await s.close();
});

/** An app emailing through a fresh sink that answers as told, with the queue stepped by hand, and a tenant ready to stamp. */
async function setup(answers: SmtpAnswer[] = [], o: { smtp?: false } = {}) {
  const sink = await smtpSink(answers);
  sinks.push(sink);
  const t = await createTestApp({ wakeOnEnqueue: false, webhookAllowPrivate: true, ...(o.smtp === false ? {} : { smtp: sink.smtp }) });
  const reg = await issuer(t, READY);
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
    expect(mail.from?.value[0]).toEqual({ name: 'ESCUELA KEMPER URGATE', address: 'facturas@example.com' });
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
    const theirs = (await t.call('POST', '/cfdis', { token: other.key, body: ingreso({ email_to: ['b@example.com'] }) })).json;
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
    expect(sink.received[0]!.from?.value[0]).toEqual({ name: 'ESCUELA KEMPER URGATE', address: 'facturas@example.com' });

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
