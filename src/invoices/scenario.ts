import type { Context } from 'hono';
import { actorOf, type BackendEnv } from '../lib/backend.ts';
import { ServiceError } from '../lib/service-error.ts';

/**
 * The `X-Sandbox-Scenario` header: one of `allowed` or 400; honoured in test mode only — in live mode it is
 * ignored and the response says so in a `Warning` header.
 */
export function sandboxScenarioOf<T extends string>(c: Context<BackendEnv>, allowed: readonly T[]): T | undefined {
  const requested = c.req.header('x-sandbox-scenario');
  if (requested === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(requested)) {
    throw new ServiceError('invalid_header', 'Invalid X-Sandbox-Scenario', [{ field: 'x-sandbox-scenario', issue: `must be one of ${allowed.join(', ')}` }]);
  }
  if (actorOf(c).environment === 'test') return requested as T;
  c.header('Warning', '299 - "X-Sandbox-Scenario is ignored in live mode"');
  return undefined;
}
