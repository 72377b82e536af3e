import { apiList, cursorOf, field, pager } from './forms.ts';
import type { ConsoleKit, ConsoleRouter } from './kit.ts';
import { h, page } from './page.ts';

/** GET /api/v1/audit-log's item. */
interface Entry {
  id: string;
  created_at: string;
  actor: { type: string; id: string };
  environment: string;
  action: string;
  method: string;
  path: string;
  status: number;
  resource: { type: string; id: string | null };
  request_id: string;
}

/** The API's filters of GET /audit-log, by their query names. */
const FILTERS = ['actor_id', 'resource_id', 'action'] as const;

/** The audit log (the API lets only an ADMIN read it): its filters, newest first, by the API's cursor. */
export function mountAuditLogScreens(web: ConsoleRouter, kit: ConsoleKit) {
  web.get(
    '/console/audit-log',
    kit.signedIn(async (c, session, viewer) => {
      const { t } = viewer;
      const params = new URLSearchParams();
      for (const f of FILTERS) {
        const value = c.req.query(f)?.trim();
        if (value) params.set(f, value.slice(0, 64));
      }
      const cursor = cursorOf(c);
      const query = new URLSearchParams({ limit: '50', ...Object.fromEntries(params), ...(cursor ? { cursor } : {}) });
      const got = await apiList<Entry>(kit, c, session, viewer, `/api/v1/audit-log?${query}`);
      if (got instanceof Response) return got;
      const content = h`<form method="get" action="/console/audit-log" class="card" role="search" aria-label="${t.filters}"><div class="grid">
${field('al', 'actor_id', t.auditActor, params.get('actor_id'), h`maxlength="64" autocomplete="off" spellcheck="false"`)}
${field('al', 'resource_id', t.auditResource, params.get('resource_id'), h`maxlength="64" autocomplete="off" spellcheck="false"`)}
${field('al', 'action', t.auditAction, params.get('action'), h`maxlength="64" autocomplete="off" spellcheck="false" placeholder="cancelCfdi"`)}
<div class="actions"><button type="submit" id="search">${t.search}</button><a href="/console/audit-log">${t.clear}</a></div>
</div></form>
<section>${
        got.data.length === 0
          ? h`<p id="empty">${t.auditNone}</p>`
          : h`<table class="list" id="audit-log"><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.auditActor}</th><th scope="col">${t.auditAction}</th><th scope="col">${t.auditResource}</th><th scope="col">HTTP</th><th scope="col">${t.environment}</th></tr></thead><tbody>
${got.data.map(
  (e) =>
    h`<tr data-id="${e.id}"><td data-label="${t.date}">${e.created_at}</td><td data-label="${t.auditActor}">${e.actor.type}: ${e.actor.id}</td><td data-label="${t.auditAction}">${e.action}<br><code>${e.method} ${e.path}</code></td><td data-label="${t.auditResource}">${e.resource.type}${e.resource.id ? h`: ${e.resource.id}` : ''}</td><td data-label="HTTP">${e.status}</td><td data-label="${t.environment}">${e.environment}</td></tr>`,
)}
</tbody></table>`
      }${pager(viewer, '/console/audit-log', params, got.next, !!cursor)}</section>`;
      return kit.htmlPage(c, page(viewer, t.auditLog, content));
    }),
  );
}
