import type { Db } from '../db/client.ts';
import { createBackend, type BackendDeps } from '../lib/backend.ts';
import type { RateLimits } from '../gateway/rate-limit.ts';
import { mountCfdiRoutes } from './cfdis/routes.ts';
import { mountRetencionRoutes } from './retenciones/routes.ts';
import type { ConsultRetencion } from './retenciones/cancellation.ts';
import type { CfdiDeps } from './cfdis/issue.ts';
import { mountCancellationRoutes } from './cancellations/routes.ts';
import type { CancellationDeps } from './cancellations/service.ts';
import { mountWebhookRoutes } from './webhooks/routes.ts';
import type { WebhookDeliveryDeps } from './webhooks/delivery.ts';
import { mountCsdRoutes } from './csds/routes.ts';
import { mountFielRoutes } from './fiel/routes.ts';
import { mountReceivedRoutes } from './received/routes.ts';
import { mountSatListRoutes } from './sat-lists/routes.ts';
import { mountReceivedStatusRoutes } from './received/status-routes.ts';
import type { ReceivedStatusDeps } from './received/status.ts';
import { mountSatDownloadRoutes } from './sat-downloads/routes.ts';
import { mountClientRoutes } from './clients/routes.ts';
import { mountSeriesRoutes } from './series/routes.ts';
import { mountCatalogRoutes } from '../catalogs/routes.ts';
import { mountStatsRoutes } from './stats/routes.ts';
import { mountEmailRoutes } from './emails/routes.ts';
import { mountReceiptRoutes } from './receipts/routes.ts';
import type { ReceiptDeps } from './receipts/service.ts';
import { mountPacRoutes } from './pacs/routes.ts';
import type { PacRouter } from '../pac/failover.ts';
import type { ReceivedDeps } from './received/intake.ts';

/** The invoice backend: /cfdis, /retenciones, /csds, /fiel, /received-cfdis, /sat-downloads, /sat-lists, /clients, /series, /receipts, /catalogos, /webhooks, /stats, /pacs. Invalid input answers 400. */
export function createInvoiceBackend(
  deps: BackendDeps &
    Omit<CfdiDeps, 'db' | 'now'> &
    Pick<ReceiptDeps, 'publicBaseUrl'> &
    Pick<CancellationDeps, 'cancellationPollMs'> &
    Omit<WebhookDeliveryDeps, 'db' | 'now' | 'masterKey' | 'wakeJobs'> &
    Pick<ReceivedDeps, 'satCertificates'> & { receivedStatus: ReceivedStatusDeps; consultRetencion: ConsultRetencion } & {
      catalogDb: Db;
      rateLimits: RateLimits;
      pacRouter?: PacRouter;
      /** Who stamps retenciones: the sandbox (test), the live PACs over retencion_stamp_attempts (live). */
      retencionStamperFor: CfdiDeps['stamperFor'];
    },
) {
  const app = createBackend(deps, 'invoices');
  mountCsdRoutes(app, deps);
  mountFielRoutes(app, deps);
  mountSatListRoutes(app, deps);
  mountReceivedStatusRoutes(app, deps);
  mountSatDownloadRoutes(app, deps);
  mountClientRoutes(app, deps);
  mountSeriesRoutes(app, deps);
  mountCfdiRoutes(app, deps);
  mountRetencionRoutes(app, { ...deps, stamperFor: deps.retencionStamperFor });
  mountCancellationRoutes(app, deps);
  mountEmailRoutes(app, deps);
  mountReceiptRoutes(app, deps);
  mountWebhookRoutes(app, deps);
  mountCatalogRoutes(app, { db: deps.catalogDb });
  mountStatsRoutes(app, deps);
  mountPacRoutes(app, deps);
  mountReceivedRoutes(app, deps);
  return app;
}
