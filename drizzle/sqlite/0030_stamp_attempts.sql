CREATE TABLE `cfdi_duplicate_stamps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`pac` text NOT NULL,
	`uuid` text NOT NULL,
	`status` text NOT NULL,
	`detail` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cfdi_duplicate_stamps_cfdi_idx` ON `cfdi_duplicate_stamps` (`cfdi_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `cfdi_duplicate_stamps_uuid_unique` ON `cfdi_duplicate_stamps` (`uuid`);--> statement-breakpoint
CREATE TABLE `cfdi_stamp_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`pac` text NOT NULL,
	`outcome` text NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cfdi_stamp_attempts_cfdi_idx` ON `cfdi_stamp_attempts` (`cfdi_id`,`id`);