import { createBackend, type BackendDeps } from '../lib/backend.ts';
import type { Environment } from '../db/schema/index.ts';
import type { Pac } from '../pac/types.ts';
import { mountCfdiRoutes } from './cfdis/routes.ts';
import { mountCsdRoutes } from './csds/routes.ts';
import { mountClientRoutes } from './clients/routes.ts';
import { mountSeriesRoutes } from './series/routes.ts';

/** The invoice backend: /cfdis, /csds, /clients, /series, /catalogos, /webhooks, /stats. Invalid input answers 400. */
export function createInvoiceBackend(deps: BackendDeps & { masterKey: Buffer; pacFor(environment: Environment): Pac | undefined }) {
  const app = createBackend(deps, 400);
  mountCsdRoutes(app, deps);
  mountClientRoutes(app, deps);
  mountSeriesRoutes(app, deps);
  mountCfdiRoutes(app, deps);
  return app;
}
