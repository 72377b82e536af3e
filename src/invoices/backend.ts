import { createBackend, type BackendDeps } from '../lib/backend.ts';
import { mountCsdRoutes } from './csds/routes.ts';

/** The invoice backend: /cfdis, /csds, /clients, /series, /catalogos, /webhooks, /stats. Invalid input answers 400. */
export function createInvoiceBackend(deps: BackendDeps & { masterKey: Buffer }) {
  const app = createBackend(deps, 400);
  mountCsdRoutes(app, deps);
  return app;
}
