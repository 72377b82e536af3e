import { createBackend, WRITE_METHODS, type BackendDeps } from '../lib/backend.ts';
import { announceIdentityChange } from '../lib/identity-changes.ts';
import { mountApiKeyRoutes } from './api-keys/routes.ts';
import { mountAuditLogRoutes } from './audit-log/routes.ts';
import type { AuthDeps } from './deps.ts';
import { mountSessionRoutes } from './session/routes.ts';
import { mountTenantRoutes } from './tenants/routes.ts';
import { mountUserRoutes } from './users/routes.ts';

/** The authentication backend: /auth/*, /users, /api-keys, /tenants/me, /audit-log. Invalid input answers 422. */
export function createAuthBackend(deps: BackendDeps & AuthDeps) {
  const app = createBackend(deps, 'auth');
  // Any write here may change who a credential is (revoked key, role, deleted user, password, plan): every instance
  // forgets what it resolved for that tenant, before the caller hears that the write is done.
  app.on(WRITE_METHODS, '*', async (c, next) => {
    await next();
    const actor = c.get('actor');
    if (!actor) return;
    try {
      await announceIdentityChange(deps.db, actor.tenantId);
    } catch (err) {
      // The write stands; other instances see it when their cached entries expire (10 s).
      deps.logger.warn('identity change not announced', { tenant_id: actor.tenantId, err: String(err) });
    }
  });
  mountSessionRoutes(app, deps);
  mountUserRoutes(app, deps);
  mountApiKeyRoutes(app, deps);
  mountTenantRoutes(app, deps);
  mountAuditLogRoutes(app, deps);
  return app;
}
