import { and, eq } from 'drizzle-orm';
import { cancellationFactsOf } from '../cfdi/cancellation.ts';
import type { Db } from '../db/client.ts';
import { cfdiDocuments, cfdis } from '../db/schema/index.ts';
import type { SandboxSatRegistry } from '../pac/sandbox.ts';
import { dependentsOf } from './cancellations/service.ts';

/** What the sandbox's simulated SAT knows: the test CFDIs this service stamped, read from their stored XML. */
export function sandboxRegistry(db: Db, pollMs: number): SandboxSatRegistry {
  return {
    db,
    pollMs,
    async find(uuid) {
      const [row] = await db
        .select({ tenantId: cfdis.tenantId, xml: cfdiDocuments.xml })
        .from(cfdis)
        .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
        .where(and(eq(cfdis.uuid, uuid), eq(cfdis.environment, 'test')));
      if (!row) return undefined;
      return {
        tenantId: row.tenantId,
        facts: cancellationFactsOf(row.xml.toString('utf8')),
        hasDependents: (await dependentsOf(db, { tenantId: row.tenantId, environment: 'test' }, uuid)).length > 0,
      };
    },
  };
}
