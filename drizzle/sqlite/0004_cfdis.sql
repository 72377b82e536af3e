CREATE TABLE `cfdi_documents` (
	`cfdi_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`xml` blob NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `cfdis` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`uuid` text,
	`tipo` text NOT NULL,
	`status` text NOT NULL,
	`serie` text,
	`folio` integer,
	`fecha` text NOT NULL,
	`fecha_timbrado` text,
	`receptor_rfc` text NOT NULL,
	`receptor_nombre` text NOT NULL,
	`moneda` text NOT NULL,
	`subtotal` text NOT NULL,
	`total` text NOT NULL,
	`summary` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cfdis_uuid_unique` ON `cfdis` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `cfdis_folio_unique` ON `cfdis` (`tenant_id`,`environment`,`serie`,`folio`);--> statement-breakpoint
CREATE INDEX `cfdis_tenant_idx` ON `cfdis` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `cfdis_tenant_receptor_idx` ON `cfdis` (`tenant_id`,`environment`,`receptor_rfc`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`key` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`headers` text NOT NULL,
	`body` blob NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `idempotency_unique` ON `idempotency_keys` (`tenant_id`,`environment`,`key`);--> statement-breakpoint
CREATE INDEX `idempotency_created_idx` ON `idempotency_keys` (`created_at`);