CREATE TABLE `clients` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`rfc` text NOT NULL,
	`nombre` text NOT NULL,
	`nombre_search` text NOT NULL,
	`regimen_fiscal` text NOT NULL,
	`domicilio_fiscal` text NOT NULL,
	`uso_cfdi` text NOT NULL,
	`email` text,
	`residencia_fiscal` text,
	`num_reg_id_trib` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `clients_tenant_idx` ON `clients` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `clients_tenant_rfc_idx` ON `clients` (`tenant_id`,`environment`,`rfc`);--> statement-breakpoint
CREATE TABLE `series` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`serie` text NOT NULL,
	`next_folio` integer DEFAULT 1 NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`descripcion` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `series_serie_unique` ON `series` (`tenant_id`,`environment`,`serie`);--> statement-breakpoint
CREATE UNIQUE INDEX `series_default_unique` ON `series` (`tenant_id`,`environment`) WHERE is_default = 1;--> statement-breakpoint
CREATE INDEX `series_tenant_idx` ON `series` (`tenant_id`,`environment`,`id`);