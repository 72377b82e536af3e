CREATE TABLE `sat_downloads` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`direction` text NOT NULL,
	`kind` text NOT NULL,
	`desde` text NOT NULL,
	`hasta` text NOT NULL,
	`tipo` text,
	`rfc` text,
	`period_key` text NOT NULL,
	`request_number` integer NOT NULL,
	`id_solicitud` text,
	`status` text DEFAULT 'requested' NOT NULL,
	`cod_estatus` text,
	`estado_solicitud` integer,
	`codigo_estado_solicitud` text,
	`mensaje` text,
	`numero_cfdis` integer,
	`packages` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`requested_at` text,
	`checked_at` text,
	`finished_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sat_downloads_period_unique` ON `sat_downloads` (`tenant_id`,`environment`,`period_key`,`request_number`);--> statement-breakpoint
CREATE INDEX `sat_downloads_tenant_idx` ON `sat_downloads` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE TABLE `sat_download_packages` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`sat_download_id` text NOT NULL,
	`package_id` text NOT NULL,
	`bytes` blob,
	`downloads` integer DEFAULT 0 NOT NULL,
	`downloaded_at` text,
	`processed_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sat_download_id`) REFERENCES `sat_downloads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sat_download_packages_unique` ON `sat_download_packages` (`sat_download_id`,`package_id`);--> statement-breakpoint
CREATE TABLE `sat_metadata` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`uuid` text NOT NULL,
	`rfc_emisor` text NOT NULL,
	`nombre_emisor` text NOT NULL,
	`rfc_receptor` text NOT NULL,
	`nombre_receptor` text NOT NULL,
	`rfc_pac` text NOT NULL,
	`fecha_emision` text NOT NULL,
	`fecha_certificacion_sat` text NOT NULL,
	`monto` text NOT NULL,
	`efecto_comprobante` text NOT NULL,
	`estatus` text NOT NULL,
	`fecha_cancelacion` text,
	`sat_download_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sat_metadata_uuid_unique` ON `sat_metadata` (`tenant_id`,`environment`,`uuid`);