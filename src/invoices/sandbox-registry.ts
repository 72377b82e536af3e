import { cancellationFactsOf } from '../cfdi/cancellation.ts';
import type { Db } from '../db/client.ts';
import { statement } from '../db/prepared.ts';
import type { SandboxSatRegistry } from '../pac/sandbox.ts';
import { dependentsOf } from './cancellations/service.ts';

/** What the sandbox's simulated SAT knows: the test CFDIs this service stamped, read from their stored XML. */
export function sandboxRegistry(db: Db, pollMs: number): SandboxSatRegistry {
  return {
    db,
    pollMs,
    async find(uuid) {
      const row = await statement(
        db,
        "select c.tenant_id as tenantId, d.xml as xml from cfdis c join cfdi_documents d on d.cfdi_id = c.id where c.uuid = ? and c.environment = 'test'",
      ).get(uuid) as { tenantId: string; xml: Buffer } | undefined;
      if (!row) return undefined;
      return { tenantId: row.tenantId, facts: cancellationFactsOf(row.xml.toString('utf8')), hasDependents: (await dependentsOf(db, { tenantId: row.tenantId, environment: 'test' }, uuid)).length > 0 };
    },
  };
}
