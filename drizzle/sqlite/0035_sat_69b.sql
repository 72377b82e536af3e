CREATE TABLE `sat_69b_entries` (
	`list_id` text NOT NULL,
	`tenant_id` text,
	`rfc` text NOT NULL,
	`situacion` text NOT NULL,
	PRIMARY KEY(`list_id`, `rfc`),
	FOREIGN KEY (`list_id`) REFERENCES `sat_69b_lists`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sat_69b_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`environment` text,
	`source` text NOT NULL,
	`list_date` text,
	`entries` integer NOT NULL,
	`loaded_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
