/** The plans a tenant can be on, and what each allows. The tenants table's `plan` column takes its values from here. */
export const PLANS = ['sandbox', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests per minute per API key (per user for a JWT); an enterprise tenant may be given more, never less. */
export const PLAN_LIMITS: Record<Plan, number> = { sandbox: 60, starter: 100, pro: 300, enterprise: 1000 };

/** Per-minute limit of a tenant's plan; an enterprise tenant may have its own value (never below 1,000). */
export const rateLimitOf = (t: { plan: Plan; rateLimitPerMinute: number | null }): number =>
  t.plan === 'enterprise' ? Math.max(PLAN_LIMITS.enterprise, t.rateLimitPerMinute ?? 0) : PLAN_LIMITS[t.plan];

/**
 * How many times EMAIL_DAILY_LIMIT (recipients per UTC day) each plan may email: a free sign-up gets the operator's
 * base, a paying tenant more (docs/decisions.md, "Email budgets").
 */
const EMAIL_PLAN_FACTOR: Record<Plan, number> = { sandbox: 1, starter: 5, pro: 25, enterprise: 100 };

/** EMAIL_DAILY_LIMIT when it is not set: a free tenant's 200 recipients a day. */
export const DEFAULT_EMAIL_DAILY_LIMIT = 200;

/** Recipients the tenant may email per UTC day, from the server's EMAIL_DAILY_LIMIT. */
export const emailDailyLimitOf = (plan: Plan, base: number): number => base * EMAIL_PLAN_FACTOR[plan];
