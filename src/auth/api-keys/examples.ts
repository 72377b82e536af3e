import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { ApiKeyCreateSchema } from './schemas.ts';

export const ApiKeyCreateExamples = {
  sandbox: { summary: 'A sandbox key (sk_test_…) for an integration', value: { name: 'ERP pruebas', environment: 'test' } },
} satisfies BodyExamples<z.input<typeof ApiKeyCreateSchema>>;
