import { z } from '@hono/zod-openapi';
import type { PacState } from '../../pac/failover.ts';

const PacStateSchema = z
  .object({
    name: z.string().openapi({ description: "The PAC's registry name, as recorded on the CFDIs it stamps", example: 'sw' }),
    circuit: z.enum(['closed', 'open', 'half_open']).openapi({
      description:
        '`closed`: asked in order; `open`: skipped after consecutive provider-side or ambiguous failures (documents pinned to it wait); ' +
        '`half_open`: the open time has passed and the next stamp is one probe, which closes it on success or opens it again',
    }),
    consecutive_failures: z
      .number()
      .int()
      .openapi({ description: 'Provider-side or ambiguous answers in a row (a stamp, a duplicate or a data error resets it)' }),
    last_error: z.string().nullable().openapi({ description: 'The last provider-side or ambiguous failure, as the PAC or its connection gave it' }),
    last_error_at: z.string().nullable().openapi({ description: 'When that failure came (ISO 8601, UTC)' }),
    latency_ms: z.number().int().nullable().openapi({ description: 'The mean time of its last 20 answers, in ms; null before the first' }),
  })
  .openapi('PacState');

export const PacListSchema = z
  .object({
    environment: z.enum(['test', 'live']),
    data: z.array(PacStateSchema).openapi({ description: 'In the order stamping tries them' }),
  })
  .openapi('PacList');

export const pacStateOut = (s: PacState): z.infer<typeof PacStateSchema> => ({
  name: s.name,
  circuit: s.circuit,
  consecutive_failures: s.consecutiveFailures,
  last_error: s.lastError?.message ?? null,
  last_error_at: s.lastError?.at ?? null,
  latency_ms: s.latencyMs,
});
