CREATE TABLE `fiels` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`rfc` text NOT NULL,
	`serial_number` text NOT NULL,
	`name` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_to` text NOT NULL,
	`certificate_der` blob NOT NULL,
	`private_key_sealed` blob NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fiels_tenant_unique` ON `fiels` (`tenant_id`);