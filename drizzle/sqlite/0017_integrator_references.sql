ALTER TABLE `clients` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `cfdis` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `cfdis` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `cfdis_external_id_unique` ON `cfdis` (`tenant_id`,`environment`,`external_id`) WHERE external_id is not null;