import { actionButton, apiList, choice, cursorOf, errorBox, field, idOf, isAdmin, outcome, pager, postForm } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, page, type Viewer } from './page.ts';

/** GET /api/v1/users's item. */
interface User {
  id: string;
  email: string;
  nombre: string;
  role: string;
  last_login_at: string | null;
}

const ROLES = ['ADMIN', 'OPERATOR', 'VIEWER'] as const;

/** Users and roles: the list, a new user with a role, a role changed, a user removed (the API's rules: not the last ADMIN, not yourself). */
export function mountUserScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const list = async (c: ConsoleContext, session: Session, viewer: Viewer, form?: Record<string, string> & { error?: string }, status?: PageStatus) => {
    const { t } = viewer;
    const roles = ROLES.map((r): [string, string] => [r, t.roles[r] ?? r]);
    const cursor = cursorOf(c);
    const got = await apiList<User>(kit, c, session, viewer, `/api/v1/users?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`);
    if (got instanceof Response) return got;
    const admin = isAdmin(viewer);
    const create = admin
      ? postForm(
          viewer,
          '/console/users',
          h`<h2>${t.userNew}</h2><div class="grid">
${field('us', 'email', t.email, form?.email, h`type="email" required maxlength="254" autocomplete="off"`)}
${field('us', 'nombre', t.name, form?.nombre, h`required maxlength="200" autocomplete="off"`)}
${field('us', 'password', t.password, '', h`type="password" required minlength="12" maxlength="128" autocomplete="new-password"`)}
${choice('us', 'role', t.role, roles, form?.role ?? 'VIEWER')}
<div class="actions"><button type="submit" id="create-user">${t.create}</button></div>
</div>`,
          { card: true, id: 'new-user' },
        )
      : '';
    const table = h`<table class="list" id="users"><thead><tr><th scope="col">${t.name}</th><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.lastLogin}</th>${admin ? h`<th scope="col">${t.actions}</th>` : ''}</tr></thead><tbody>
${got.data.map(
  (u) =>
    h`<tr data-id="${u.id}"><td data-label="${t.name}">${u.nombre}</td><td data-label="${t.email}">${u.email}</td><td data-label="${t.role}" class="user-role">${
      admin
        ? postForm(
            viewer,
            `/console/users/${u.id}/role`,
            h`<label for="role-${u.id}" class="sr">${t.role}</label><select id="role-${u.id}" name="role">${roles.map(
              ([value, text]) => h`<option value="${value}"${value === u.role ? h` selected` : ''}>${text}</option>`,
            )}</select> <button type="submit" class="secondary" id="save-role-${u.id}">${t.save}</button>`,
          )
        : (t.roles[u.role] ?? u.role)
    }</td><td data-label="${t.lastLogin}">${u.last_login_at ?? '—'}</td>${
      admin
        ? h`<td data-label="${t.actions}">${actionButton(viewer, `/console/users/${u.id}/delete`, t.delete, { id: `delete-${u.id}`, danger: true, confirm: t.userDeleteConfirm })}</td>`
        : ''
    }</tr>`,
)}
</tbody></table>`;
    return kit.htmlPage(
      c,
      page(
        viewer,
        t.users,
        h`${errorBox(form?.error)}${create}<section>${table}${pager(viewer, '/console/users', new URLSearchParams(), got.next, !!cursor)}</section>`,
      ),
      status,
    );
  };

  web.get(
    '/console/users',
    kit.signedIn((c, session, viewer) => list(c, session, viewer)),
  );

  web.post(
    '/console/users',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const body = { email: (form.email ?? '').trim(), nombre: (form.nombre ?? '').trim(), password: form.password ?? '', role: form.role ?? '' };
        const res = await kit.api(c, session, 'POST', '/api/v1/users', body);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { email: body.email, nombre: body.nombre, role: body.role, error: refused.error }, refused.status);
        return kit.redirect(c, '/console/users');
      }),
    ),
  );

  web.post(
    '/console/users/:id/role',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        // Another tenant's user is not there (404), whatever the form says.
        const found = await kit.api(c, session, 'GET', `/api/v1/users/${idOf(c)}`);
        const missing = await kit.refused(c, viewer, found);
        if (missing) return missing;
        const res = await kit.api(c, session, 'PATCH', `/api/v1/users/${idOf(c)}`, { role: form.role ?? '' });
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { error: refused.error }, refused.status);
        return kit.redirect(c, '/console/users');
      }),
    ),
  );

  web.post(
    '/console/users/:id/delete',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'DELETE', `/api/v1/users/${idOf(c)}`);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { error: refused.error }, refused.status);
        return kit.redirect(c, '/console/users');
      }),
    ),
  );
}
