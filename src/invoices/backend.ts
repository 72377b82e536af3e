import { createBackend, type BackendDeps } from '../lib/backend.ts';

/** The invoice backend: /cfdis, /csds, /clients, /series, /catalogos, /webhooks, /stats. Invalid input answers 400. */
export function createInvoiceBackend(deps: BackendDeps) {
  const app = createBackend(deps, 400);
  return app;
}
