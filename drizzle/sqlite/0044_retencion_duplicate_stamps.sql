CREATE TABLE `retencion_duplicate_stamps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`retencion_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`pac` text NOT NULL,
	`uuid` text NOT NULL,
	`status` text NOT NULL,
	`detail` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`retencion_id`) REFERENCES `retenciones`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `retencion_duplicate_stamps_retencion_idx` ON `retencion_duplicate_stamps` (`retencion_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `retencion_duplicate_stamps_uuid_unique` ON `retencion_duplicate_stamps` (`uuid`);