import { createBackend, type BackendDeps } from '../lib/backend.ts';
import { mountApiKeyRoutes } from './api-keys/routes.ts';
import { mountAuditLogRoutes } from './audit-log/routes.ts';
import type { AuthDeps } from './deps.ts';
import { mountSessionRoutes } from './session/routes.ts';
import { mountTenantRoutes } from './tenants/routes.ts';
import { mountUserRoutes } from './users/routes.ts';

/** The authentication backend: /auth/*, /users, /api-keys, /tenants/me, /audit-log. Invalid input answers 422. */
export function createAuthBackend(deps: BackendDeps & AuthDeps & { onIdentityChange?: (tenantId: string) => void }) {
  const app = createBackend(deps, 'auth');
  // Any write here may change who a credential is (revoked key, role, deleted user, password, plan):
  // tell the gateway to forget what it resolved for that tenant.
  app.use('*', async (c, next) => {
    await next();
    const actor = c.get('actor');
    if (actor && c.req.method !== 'GET' && c.req.method !== 'HEAD') deps.onIdentityChange?.(actor.tenantId);
  });
  mountSessionRoutes(app, deps);
  mountUserRoutes(app, deps);
  mountApiKeyRoutes(app, deps);
  mountTenantRoutes(app, deps);
  mountAuditLogRoutes(app, deps);
  return app;
}
