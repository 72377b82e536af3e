import type { Fail } from '../../../input.ts';
import { type CatalogChecks, catalogChecks } from '../../catalog-checks.ts';

/** Field path as the request spells it, under the complement's key. */
export const at = (path: string) => `comercio_exterior.${path}`;

export type Checks = CatalogChecks;
export const checks = (day: string, fail: Fail): Checks => catalogChecks(day, fail, at);
