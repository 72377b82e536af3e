ALTER TABLE `webhooks` ADD `previous_secret_sealed` blob;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `previous_expires_at` text;