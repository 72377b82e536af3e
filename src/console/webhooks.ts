import { actionButton, apiList, choice, cursorOf, errorBox, field, idOf, isAdmin, outcome, pager, postForm, readRefused } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, page, type Viewer } from './page.ts';

/** GET /api/v1/webhooks's item. */
interface Webhook {
  id: string;
  url: string;
  events: string[];
  estado: string;
  consecutive_failures: number;
  created_at: string;
}

/** GET /api/v1/webhooks/{id}/deliveries's item, with every attempt and the receiver's answer. */
interface Delivery {
  id: string;
  event: string;
  state: string;
  attempts: number;
  status_code: number | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  history: { attempt: number; status_code: number | null; response_body: string | null; error: string | null; duration_ms: number; at: string }[];
}

/** How long the previous secret may keep signing after a rotation, in hours (the API takes 0 to 72). */
const OVERLAP_HOURS = [0, 1, 24, 72];

/** The webhooks screen: the endpoints, a new one (its secret shown once), and each one's deliveries with a replay. */
export function mountWebhookScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const list = async (c: ConsoleContext, session: Session, viewer: Viewer, form?: { url?: string; events?: string; error?: string }, status?: PageStatus) => {
    const { t } = viewer;
    const cursor = cursorOf(c);
    const got = await apiList<Webhook>(kit, c, session, viewer, `/api/v1/webhooks?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`);
    if (got instanceof Response) return got;
    const create = isAdmin(viewer)
      ? postForm(
          viewer,
          '/console/webhooks',
          h`<h2>${t.webhookNew}</h2>${errorBox(form?.error)}<div class="grid">
${field('wh', 'url', t.webhookUrl, form?.url, h`type="url" required maxlength="2048" placeholder="https://" autocomplete="off"`)}
${field('wh', 'events', t.webhookEvents, form?.events ?? '*', h`required maxlength="400" autocomplete="off" aria-describedby="wh-events-help"`)}
<div class="actions"><button type="submit" id="create-webhook">${t.create}</button></div>
</div><p class="help" id="wh-events-help">${t.webhookEventsHelp}</p>`,
          { card: true, id: 'new-webhook' },
        )
      : '';
    const table =
      got.data.length === 0
        ? h`<p id="empty">${t.webhookNone}</p>`
        : h`<table class="list" id="webhooks"><thead><tr><th scope="col">${t.webhookUrl}</th><th scope="col">${t.webhookEvents}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.webhookFailures}</th></tr></thead><tbody>
${got.data.map(
  (w) =>
    h`<tr data-id="${w.id}"><td data-label="${t.webhookUrl}"><a href="/console/webhooks/${w.id}">${w.url}</a></td><td data-label="${t.webhookEvents}">${w.events.join(', ')}</td><td data-label="${t.status}">${w.estado}</td><td data-label="${t.webhookFailures}" class="num">${w.consecutive_failures}</td></tr>`,
)}
</tbody></table>`;
    const content = h`${create}<section>${table}${pager(viewer, '/console/webhooks', new URLSearchParams(), got.next, !!cursor)}</section>`;
    return kit.htmlPage(c, page(viewer, t.webhooks, content), status);
  };

  web.get(
    '/console/webhooks',
    kit.signedIn((c, session, viewer) => list(c, session, viewer)),
  );

  web.post(
    '/console/webhooks',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const events = (form.events ?? '')
          .split(/[\s,]+/)
          .map((e) => e.trim())
          .filter(Boolean);
        const res = await kit.api(c, session, 'POST', '/api/v1/webhooks', { url: (form.url ?? '').trim(), events });
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { url: form.url, events: form.events, error: refused.error }, refused.status);
        const created = (await res.json()) as Webhook & { secret: string };
        const { t } = viewer;
        // The secret is in this answer only (the API never shows it again): this page is not stored (no-store).
        return kit.htmlPage(
          c,
          page(
            viewer,
            t.webhooks,
            h`<section class="notice" role="status"><h2>${t.webhookCreated}</h2><p>${t.shownOnce}</p>
<p><code id="webhook-secret">${created.secret}</code></p>
<p><a href="/console/webhooks/${created.id}">${created.url}</a></p></section><p><a href="/console/webhooks">${t.backTo(t.webhooks)}</a></p>`,
          ),
        );
      }),
    ),
  );

  const detail = async (c: ConsoleContext, session: Session, viewer: Viewer, rotation?: { hours?: string; error?: string }, status?: PageStatus) => {
    const { t } = viewer;
    const id = idOf(c);
    const res = await kit.api(c, session, 'GET', `/api/v1/webhooks/${id}`);
    if (res.status !== 200) return readRefused(kit, c, viewer, res);
    const w = (await res.json()) as Webhook;
    const cursor = cursorOf(c);
    const got = await apiList<Delivery>(
      kit,
      c,
      session,
      viewer,
      `/api/v1/webhooks/${id}/deliveries?${new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) })}`,
    );
    if (got instanceof Response) return got;
    const admin = isAdmin(viewer);
    const actions = admin
      ? h`<div class="actions">
${actionButton(viewer, `/console/webhooks/${w.id}/test`, t.webhookTest, { id: 'test-webhook' })}
${postForm(viewer, `/console/webhooks/${w.id}/state`, h`<input type="hidden" name="estado" value="${w.estado === 'ACTIVO' ? 'PAUSADO' : 'ACTIVO'}"><button type="submit" class="secondary" id="toggle-webhook">${w.estado === 'ACTIVO' ? t.webhookPause : t.webhookResume}</button>`)}
${actionButton(viewer, `/console/webhooks/${w.id}/delete`, t.delete, { id: 'delete-webhook', danger: true, confirm: t.webhookDeleteConfirm })}
</div>`
      : '';
    const deliveries =
      got.data.length === 0
        ? h`<p id="no-deliveries">${t.webhookNoDeliveries}</p>`
        : got.data.map(
            (d) => h`<article class="delivery" data-id="${d.id}" data-state="${d.state}">
<h3>${d.event} · <span class="state">${t.deliveryStates[d.state] ?? d.state}</span></h3>
<dl><dt>${t.date}</dt><dd>${d.created_at}</dd><dt>${t.deliveredAt}</dt><dd>${d.delivered_at ?? '—'}</dd><dt>${t.nextAttempt}</dt><dd>${d.next_attempt_at ?? '—'}</dd></dl>
<table class="list attempts"><thead><tr><th scope="col">#</th><th scope="col">${t.date}</th><th scope="col">HTTP</th><th scope="col">${t.answer}</th><th scope="col" class="num">ms</th></tr></thead><tbody>
${d.history.map(
  (a) =>
    h`<tr><td data-label="#">${a.attempt}</td><td data-label="${t.date}">${a.at}</td><td data-label="HTTP">${a.status_code ?? '—'}</td><td data-label="${t.answer}"><code>${a.response_body ?? a.error ?? ''}</code></td><td data-label="ms" class="num">${a.duration_ms}</td></tr>`,
)}
</tbody></table>
${admin && d.state !== 'entregado' ? actionButton(viewer, `/console/webhooks/${w.id}/deliveries/${d.id}/retry`, t.replay, { id: `replay-${d.id}` }) : ''}
</article>`,
          );
    const rotate = admin
      ? postForm(
          viewer,
          `/console/webhooks/${w.id}/rotate-secret`,
          h`<h3>${t.webhookRotate}</h3>${errorBox(rotation?.error)}<div class="grid">
${choice(
  'rot',
  'expire_previous_in_hours',
  t.webhookRotateOverlap,
  OVERLAP_HOURS.map((hours) => [String(hours), t.webhookRotateHours(hours)]),
  rotation?.hours ?? '24',
)}
<div class="actions"><button type="submit" id="rotate-secret">${t.webhookRotate}</button></div>
</div><p class="help">${t.webhookRotateHelp}</p>`,
          { card: true, id: 'rotate-webhook', label: t.webhookRotate },
        )
      : '';
    const content = h`<section aria-labelledby="h-webhook"><h2 id="h-webhook">${w.url}</h2>
<dl><dt>${t.webhookEvents}</dt><dd>${w.events.join(', ')}</dd><dt>${t.status}</dt><dd id="webhook-estado">${w.estado}</dd><dt>${t.webhookFailures}</dt><dd>${w.consecutive_failures}</dd><dt>${t.created}</dt><dd>${w.created_at}</dd></dl>
${actions}</section>${rotate}
<section aria-labelledby="h-deliveries"><h2 id="h-deliveries">${t.deliveries}</h2>${deliveries}${pager(viewer, `/console/webhooks/${w.id}`, new URLSearchParams(), got.next, !!cursor)}</section>
<p><a href="/console/webhooks">${t.backTo(t.webhooks)}</a></p>`;
    return kit.htmlPage(c, page(viewer, t.webhooks, content), status);
  };

  web.get(
    '/console/webhooks/:id',
    kit.signedIn((c, session, viewer) => detail(c, session, viewer)),
  );

  web.post(
    '/console/webhooks/:id/rotate-secret',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const given = form.expire_previous_in_hours ?? '';
        // A number the API checks (0 to 72); anything else goes as sent, so the API's refusal names the field; none, the API's default.
        const hours = /^\d{1,3}$/.test(given) ? Number(given) : given;
        const res = await kit.api(c, session, 'POST', `/api/v1/webhooks/${idOf(c)}/rotate-secret`, given === '' ? {} : { expire_previous_in_hours: hours });
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return detail(c, session, viewer, { hours: given, error: refused.error }, refused.status);
        const rotated = (await res.json()) as Webhook & { secret: string; previous_secret_expires_at: string | null };
        const { t } = viewer;
        // The secret is in this answer only (the API never shows it again): this page is not stored (no-store).
        return kit.htmlPage(
          c,
          page(
            viewer,
            t.webhooks,
            h`<section class="notice" role="status"><h2>${t.webhookRotated}</h2><p>${t.shownOnce}</p>
<p><code id="webhook-secret">${rotated.secret}</code></p>
<p id="previous-secret">${rotated.previous_secret_expires_at ? t.webhookPreviousUntil(rotated.previous_secret_expires_at) : t.webhookPreviousStopped}</p>
<p><a href="/console/webhooks/${rotated.id}">${rotated.url}</a></p></section><p><a href="/console/webhooks">${t.backTo(t.webhooks)}</a></p>`,
          ),
        );
      }),
    ),
  );

  const back = (c: ConsoleContext) => `/console/webhooks/${idOf(c)}`;
  web.post(
    '/console/webhooks/:id/state',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const estado = form.estado === 'PAUSADO' ? 'PAUSADO' : 'ACTIVO';
        const res = await kit.api(c, session, 'PATCH', `/api/v1/webhooks/${idOf(c)}`, { estado });
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, back(c));
      }),
    ),
  );
  web.post(
    '/console/webhooks/:id/test',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'POST', `/api/v1/webhooks/${idOf(c)}/test`);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, back(c));
      }),
    ),
  );
  web.post(
    '/console/webhooks/:id/delete',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'DELETE', `/api/v1/webhooks/${idOf(c)}`);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, '/console/webhooks');
      }),
    ),
  );
  web.post(
    '/console/webhooks/:id/deliveries/:delivery_id/retry',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'POST', `/api/v1/webhooks/${idOf(c)}/deliveries/${idOf(c, 'delivery_id')}/retry`);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, back(c));
      }),
    ),
  );
}
