import { afterAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { createTestApp, expectStatus, issuer, READY, smtpSink } from '../../helpers.ts';

/**
 * POST /retenciones/{id}/email: the XML and the PDF reach the SMTP sink through the email queue, as a CFDI's; a
 * permanent refusal ends it failed; roles, isolation, the test-mode rule and a server without SMTP.
 */
const sink = await smtpSink([{ code: 550, message: 'mailbox unavailable' }]);
afterAll(sink.close);
const t = await createTestApp({ wakeOnEnqueue: false, smtp: sink.smtp });
const a = await issuer(t, READY);
const b = await issuer(t, READY);

async function issue(token = a.key) {
  const res = await t.call('POST', '/retenciones', { token, body: structuredClone(RetencionExamples.retencion_arrendamiento.value) });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json as { id: string; uuid: string; folio_int: string };
}
const email = (ref: string, body: unknown, token = a.key) => t.call('POST', `/retenciones/${ref}/email`, { token, body });
const row = async (id: string) =>
  (
    await t.query<{ status: string; attempts: number; last_response: string }>(
      sql`select status, attempts, last_response from retencion_emails where id = ${id}`,
    )
  )[0]!;

describe('POST /retenciones/{id}/email', () => {
  test('a 5xx ends the sending failed; the next one reaches the sink with <uuid>.xml and <uuid>.pdf', async () => {
    const r = await issue();
    const refused = expectStatus(await t.api('POST', `/retenciones/${r.id}/email`, { token: a.key, body: { to: [a.email] } }), 202);
    expect(refused.json).toMatchObject({ retencion_id: r.id, to: [a.email.toLowerCase()], status: 'queued', attempts: 0 });
    await t.app.worker.drain();
    expect(await row(refused.json.id)).toMatchObject({ status: 'failed' });
    expect(sink.received).toHaveLength(0);

    const sent = expectStatus(await t.api('POST', `/retenciones/${r.uuid.toLowerCase()}/email`, { token: a.key, body: { to: [a.email] } }), 202);
    await t.app.worker.drain();
    expect(await row(sent.json.id)).toMatchObject({ status: 'sent' });
    expect(sink.received).toHaveLength(1);
    const mail = sink.received[0]!;
    expect(mail.subject).toContain(`Constancia de retenciones ${r.folio_int}`);
    expect(mail.text).toContain(r.uuid);
    expect(mail.attachments.map((x) => x.filename)).toEqual([`${r.uuid}.xml`, `${r.uuid}.pdf`]);
    const xml = await t.call('GET', `/retenciones/${r.id}/xml`, { token: a.key });
    expect(mail.attachments[0]!.content.toString('utf8')).toBe(xml.text);
    expect(mail.attachments[1]!.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const listed = expectStatus(await t.api('GET', `/retenciones/${r.id}/emails`, { token: a.key }), 200);
    expect(listed.json.data.map((e) => [e.id, e.status])).toEqual([
      [sent.json.id, 'sent'],
      [refused.json.id, 'failed'],
    ]);
    expect((await t.call('GET', `/retenciones/${r.id}/emails`, { token: b.key })).status).toBe(404);
  });

  test('400 naming `to` (missing, a stranger in test mode); VIEWER 403; foreign 404; nothing stored', async () => {
    const r = await issue();
    const missing = await email(r.id, {});
    expect(missing.status).toBe(400);
    expect(missing.json.error.details[0].field).toBe('to');
    const stranger = await email(r.id, { to: ['nadie@example.com'] });
    expect(stranger.status).toBe(400);
    expect(stranger.json.error.details[0].field).toBe('to');
    const viewer = await a.userWithRole('VIEWER');
    expect((await email(r.id, { to: [a.email] }, viewer.token)).status).toBe(403);
    for (const ref of [r.id, r.uuid]) expect((await email(ref, { to: [b.email] }, b.key)).status).toBe(404);
    const [{ n }] = (await t.query<{ n: number }>(sql`select count(*) as n from retencion_emails where retencion_id = ${r.id}`)) as [{ n: number }];
    expect(Number(n)).toBe(0);
  });

  test('a server without SMTP: 400 naming `to`', async () => {
    const bare = await createTestApp();
    const c = await issuer(bare, READY);
    const res = await bare.call('POST', '/retenciones', { token: c.key, body: structuredClone(RetencionExamples.retencion_arrendamiento.value) });
    const refused = await bare.call('POST', `/retenciones/${res.json.id}/email`, { token: c.key, body: { to: [c.email] } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details[0].field).toBe('to');
  });
});
