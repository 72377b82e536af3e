CREATE TABLE `login_failures` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`blocked_until` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_updated_idx` ON `login_failures` (`updated_at`);--> statement-breakpoint
DROP INDEX `users_email_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_tenant_email_unique` ON `users` (`tenant_id`,`email`);--> statement-breakpoint
CREATE INDEX `users_email_idx` ON `users` (`email`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` DROP COLUMN `failed_logins`;--> statement-breakpoint
ALTER TABLE `users` DROP COLUMN `locked_until`;--> statement-breakpoint
DROP INDEX `idempotency_unique`;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `actor` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `idempotency_actor_unique` ON `idempotency_keys` (`tenant_id`,`environment`,`actor`,`key`);--> statement-breakpoint
-- Answers stored before the credential was part of the key: no request can match them now, and they hold secrets in clear.
DELETE FROM `idempotency_keys` WHERE `actor` = '';
