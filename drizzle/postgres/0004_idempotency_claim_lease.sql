ALTER TABLE "idempotency_keys" ADD COLUMN "owner" text collate "C";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "lease_until" text collate "C";