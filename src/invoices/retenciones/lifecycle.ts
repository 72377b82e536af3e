import type { Tx } from '../../db/index.ts';
import { retencionDocuments, retenciones } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { RetencionRow } from './schemas.ts';

/**
 * The one owner of a retención's status (the CFDI's values: en_cola, vigente, cancelacion_pendiente, cancelado,
 * fallido). Nothing else writes `retenciones.status`; tests/invoices/retenciones/lifecycle.test.ts fails when something
 * does. A retención is born stamped (vigente) in the sandbox; its cancellation adds its moves here.
 */

/**
 * Writes a stamped retención in its first status with its document, and what arriving there announces
 * (`retencion.timbrada`), in the caller's transaction. How many webhook deliveries it queued.
 */
export async function bornStamped(tx: Tx, row: RetencionRow & { status: 'vigente' }, xml: string, at: Date): Promise<number> {
  await tx.insert(retenciones).values(row);
  await tx.insert(retencionDocuments).values({ retencionId: row.id, tenantId: row.tenantId, xml: Buffer.from(xml, 'utf8') });
  return recordEvent(tx, {
    tenantId: row.tenantId,
    environment: row.environment,
    type: 'retencion.timbrada',
    data: { retencion_id: row.id, uuid: row.uuid, folio_int: row.folioInt, cve_retenc: row.cveRetenc, receptor_rfc: row.receptorRfc },
    now: at,
  });
}
