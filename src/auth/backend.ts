import { createBackend, type BackendDeps } from '../lib/backend.ts';
import { mountApiKeyRoutes } from './api-keys/routes.ts';
import type { AuthDeps } from './deps.ts';
import { mountSessionRoutes } from './session/routes.ts';
import { mountTenantRoutes } from './tenants/routes.ts';
import { mountUserRoutes } from './users/routes.ts';

/** The authentication backend: /auth/*, /users, /api-keys, /tenants/me. Invalid input answers 422. */
export function createAuthBackend(deps: BackendDeps & AuthDeps) {
  const app = createBackend(deps, 422);
  mountSessionRoutes(app, deps);
  mountUserRoutes(app, deps);
  mountApiKeyRoutes(app, deps);
  mountTenantRoutes(app, deps);
  return app;
}
