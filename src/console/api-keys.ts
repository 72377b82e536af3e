import { actionButton, apiList, choice, cursorOf, errorBox, field, isAdmin, outcome, pager, postForm } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, page, type Viewer } from './page.ts';

/** GET /api/v1/api-keys's item (never the secret). */
interface ApiKey {
  id: string;
  name: string;
  environment: string;
  prefix: string;
  last_used_at: string | null;
  created_at: string;
}

/** The API keys: the active ones, a new one (its secret on the answer page only, once), revoke. */
export function mountApiKeyScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const list = async (
    c: ConsoleContext,
    session: Session,
    viewer: Viewer,
    form?: { name?: string; environment?: string; error?: string },
    status?: PageStatus,
  ) => {
    const { t } = viewer;
    const cursor = cursorOf(c);
    const got = await apiList<ApiKey>(kit, c, session, viewer, `/api/v1/api-keys?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`);
    if (got instanceof Response) return got;
    const admin = isAdmin(viewer);
    const create = admin
      ? postForm(
          viewer,
          '/console/api-keys',
          h`<h2>${t.apiKeyNew}</h2>${errorBox(form?.error)}<div class="grid">
${field('ak', 'name', t.name, form?.name, h`required maxlength="100" autocomplete="off"`)}
${choice(
  'ak',
  'environment',
  t.environment,
  [
    ['test', t.test],
    ['live', t.live],
  ],
  form?.environment ?? viewer.environment,
)}
<div class="actions"><button type="submit" id="create-api-key">${t.create}</button></div>
</div>`,
          { card: true, id: 'new-api-key' },
        )
      : '';
    const table =
      got.data.length === 0
        ? h`<p id="empty">${t.apiKeyNone}</p>`
        : h`<table class="list" id="api-keys"><thead><tr><th scope="col">${t.name}</th><th scope="col">${t.apiKeyPrefix}</th><th scope="col">${t.environment}</th><th scope="col">${t.lastUsed}</th><th scope="col">${t.created}</th>${admin ? h`<th scope="col">${t.actions}</th>` : ''}</tr></thead><tbody>
${got.data.map(
  (k) =>
    h`<tr data-id="${k.id}"><td data-label="${t.name}">${k.name}</td><td data-label="${t.apiKeyPrefix}"><code>${k.prefix}…</code></td><td data-label="${t.environment}">${k.environment}</td><td data-label="${t.lastUsed}">${k.last_used_at ?? '—'}</td><td data-label="${t.created}">${k.created_at}</td>${
      admin
        ? h`<td data-label="${t.actions}">${actionButton(viewer, `/console/api-keys/${k.id}/revoke`, t.revoke, { id: `revoke-${k.id}`, danger: true, confirm: t.apiKeyRevokeConfirm })}</td>`
        : ''
    }</tr>`,
)}
</tbody></table>`;
    return kit.htmlPage(
      c,
      page(viewer, t.apiKeys, h`${create}<section>${table}${pager(viewer, '/console/api-keys', new URLSearchParams(), got.next, !!cursor)}</section>`),
      status,
    );
  };

  web.get(
    '/console/api-keys',
    kit.signedIn((c, session, viewer) => list(c, session, viewer)),
  );

  web.post(
    '/console/api-keys',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const res = await kit.api(c, session, 'POST', '/api/v1/api-keys', { name: (form.name ?? '').trim(), environment: form.environment || 'test' });
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { ...form, error: refused.error }, refused.status);
        const created = (await res.json()) as ApiKey & { key: string };
        const { t } = viewer;
        // The key is in the API's answer only: shown here once, in a page no cache keeps (no-store), never again.
        return kit.htmlPage(
          c,
          page(
            viewer,
            t.apiKeys,
            h`<section class="notice" role="status"><h2>${t.apiKeyCreated}</h2><p>${t.shownOnce}</p>
<p><label for="api-key-secret">${created.name} (${created.environment})</label><input id="api-key-secret" readonly value="${created.key}" spellcheck="false"></p></section>
<p><a href="/console/api-keys">${t.backTo(t.apiKeys)}</a></p>`,
          ),
        );
      }),
    ),
  );

  web.post(
    '/console/api-keys/:id/revoke',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'DELETE', `/api/v1/api-keys/${encodeURIComponent(c.req.param('id') ?? '')}`);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, '/console/api-keys');
      }),
    ),
  );
}
