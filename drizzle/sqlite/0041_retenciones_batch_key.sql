ALTER TABLE `retenciones` ADD `batch_key` text;--> statement-breakpoint
ALTER TABLE `retenciones` ADD `batch_hash` text;--> statement-breakpoint
CREATE UNIQUE INDEX `retenciones_batch_key_unique` ON `retenciones` (`tenant_id`,`environment`,`batch_key`);