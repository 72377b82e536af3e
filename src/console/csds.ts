import { actionButton, apiList, cursorOf, errorBox, isAdmin, outcome, pager, postForm } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, page, type Viewer } from './page.ts';

/** GET /api/v1/csds's item. */
interface Csd {
  id: string;
  rfc: string;
  serial_number: string;
  nombre: string;
  valid_from: string;
  valid_to: string;
  status: string;
}

/**
 * The most a CSD upload form may carry to the console: the API takes files of at most 64 KiB each (413 beyond), so
 * two of them, the password and the form's token. Only POST /console/csds has this limit; every other form 16 KiB.
 */
export const CSD_UPLOAD_LIMIT = 2 * 64 * 1024 + 8 * 1024;

/** The CSDs: the list with their validity, an upload (the API's checks), activate, deactivate, delete. */
export function mountCsdScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const list = async (c: ConsoleContext, session: Session, viewer: Viewer, error?: string, status?: PageStatus) => {
    const { t } = viewer;
    const cursor = cursorOf(c);
    const got = await apiList<Csd>(kit, c, session, viewer, `/api/v1/csds?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`);
    if (got instanceof Response) return got;
    const admin = isAdmin(viewer);
    const upload = admin
      ? postForm(
          viewer,
          '/console/csds',
          h`<h2>${t.csdUpload}</h2>${errorBox(error)}<div class="grid">
<div><label for="csd-cer">${t.csdCer}</label><input id="csd-cer" name="cer" type="file" accept=".cer" required></div>
<div><label for="csd-key">${t.csdKey}</label><input id="csd-key" name="key" type="file" accept=".key" required></div>
<div><label for="csd-password">${t.password}</label><input id="csd-password" name="password" type="password" required maxlength="256" autocomplete="off"></div>
<div class="actions"><button type="submit" id="upload-csd">${t.upload}</button></div>
</div>`,
          { card: true, multipart: true, id: 'new-csd' },
        )
      : '';
    const table =
      got.data.length === 0
        ? h`<p id="empty">${t.csdNone}</p>`
        : h`<table class="list" id="csds"><thead><tr><th scope="col">${t.csdSerial}</th><th scope="col">RFC</th><th scope="col">${t.csdValidFrom}</th><th scope="col">${t.csdValidTo}</th><th scope="col">${t.status}</th>${admin ? h`<th scope="col">${t.actions}</th>` : ''}</tr></thead><tbody>
${got.data.map(
  (k) =>
    h`<tr data-id="${k.id}"><td data-label="${t.csdSerial}">${k.serial_number}<br>${k.nombre}</td><td data-label="RFC">${k.rfc}</td><td data-label="${t.csdValidFrom}">${k.valid_from}</td><td data-label="${t.csdValidTo}">${k.valid_to}</td><td data-label="${t.status}" class="csd-status">${t.csdStatuses[k.status] ?? k.status}</td>${
      admin
        ? h`<td data-label="${t.actions}"><div class="actions">${
            k.status === 'inactive'
              ? actionButton(viewer, `/console/csds/${k.id}/activate`, t.activate, { id: `activate-${k.id}` })
              : k.status === 'active'
                ? actionButton(viewer, `/console/csds/${k.id}/deactivate`, t.deactivate, { id: `deactivate-${k.id}` })
                : ''
          }${actionButton(viewer, `/console/csds/${k.id}/delete`, t.delete, { id: `delete-${k.id}`, danger: true, confirm: t.csdDeleteConfirm })}</div></td>`
        : ''
    }</tr>`,
)}
</tbody></table>`;
    return kit.htmlPage(
      c,
      page(viewer, t.csds, h`${upload}<section>${table}${pager(viewer, '/console/csds', new URLSearchParams(), got.next, !!cursor)}</section>`),
      status,
    );
  };

  web.get(
    '/console/csds',
    kit.signedIn((c, session, viewer) => list(c, session, viewer)),
  );

  web.post(
    '/console/csds',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        // The browser's multipart form, parsed once already (its token checked), sent on to the API as multipart.
        const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
        const upload = new FormData();
        for (const name of ['cer', 'key'] as const) {
          const file = body[name];
          if (file instanceof File) upload.append(name, file, file.name || `${name}.${name}`);
        }
        if (typeof body.password === 'string') upload.append('password', body.password);
        const encoded = new Response(upload);
        const contentType = encoded.headers.get('content-type')!; // read before the body: Bun drops it after
        const res = await kit.apiRaw(c, session, 'POST', '/api/v1/csds', await encoded.arrayBuffer(), contentType);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, refused.error, refused.status);
        return kit.redirect(c, '/console/csds');
      }),
    ),
  );

  const actions = { activate: 'activate', deactivate: 'deactivate' } as const;
  for (const action of Object.values(actions)) {
    web.post(
      `/console/csds/:id/${action}`,
      kit.signedIn(
        kit.change(async (c, session, viewer) => {
          const res = await kit.api(c, session, 'POST', `/api/v1/csds/${encodeURIComponent(c.req.param('id') ?? '')}/${action}`);
          const refused = await outcome(kit, c, viewer, res);
          if (refused instanceof Response) return refused;
          if (refused) return list(c, session, viewer, refused.error, refused.status);
          return kit.redirect(c, '/console/csds');
        }),
      ),
    );
  }
  web.post(
    '/console/csds/:id/delete',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'DELETE', `/api/v1/csds/${encodeURIComponent(c.req.param('id') ?? '')}`);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, '/console/csds');
      }),
    ),
  );
}
