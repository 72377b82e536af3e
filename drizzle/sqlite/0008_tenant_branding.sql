CREATE TABLE `tenant_branding` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`logo` blob,
	`logo_type` text,
	`accent_color` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
