ALTER TABLE `idempotency_keys` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `lease_until` text;