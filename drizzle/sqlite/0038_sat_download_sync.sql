CREATE TABLE `sat_download_syncs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`enabled` integer NOT NULL,
	`synced_through` text,
	`last_run_at` text,
	`last_result` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sat_download_syncs_tenant_unique` ON `sat_download_syncs` (`tenant_id`,`environment`);--> statement-breakpoint
ALTER TABLE `sat_downloads` ADD `origin` text DEFAULT 'request' NOT NULL;--> statement-breakpoint
ALTER TABLE `sat_downloads` ADD `followed_up_at` text;