CREATE TABLE `csds` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`rfc` text NOT NULL,
	`serial_number` text NOT NULL,
	`name` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_to` text NOT NULL,
	`status` text NOT NULL,
	`certificate_der` blob NOT NULL,
	`private_key_sealed` blob NOT NULL,
	`expiry_notice_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `csds_serial_unique` ON `csds` (`tenant_id`,`environment`,`serial_number`);--> statement-breakpoint
CREATE INDEX `csds_tenant_idx` ON `csds` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `csds_valid_to_idx` ON `csds` (`status`,`valid_to`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_tenant_idx` ON `events` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` blob NOT NULL,
	`updated_at` integer DEFAULT (unixepoch()) NOT NULL
);
