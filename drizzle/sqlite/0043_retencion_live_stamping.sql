CREATE TABLE `retencion_stamp_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`retencion_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`pac` text NOT NULL,
	`outcome` text NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`retencion_id`) REFERENCES `retenciones`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `retencion_stamp_attempts_retencion_idx` ON `retencion_stamp_attempts` (`retencion_id`,`id`);--> statement-breakpoint
ALTER TABLE `retenciones` ADD `failure_reason` text;