CREATE TABLE `received_cfdis` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`uuid` text,
	`sha256` text NOT NULL,
	`xml` blob NOT NULL,
	`version` text NOT NULL,
	`validation` text NOT NULL,
	`checks` text NOT NULL,
	`emisor_rfc` text,
	`emisor_nombre` text,
	`receptor_rfc` text,
	`fecha` text,
	`tipo` text,
	`metodo_pago` text,
	`forma_pago` text,
	`moneda` text,
	`total` text,
	`serie` text,
	`folio` text,
	`source` text NOT NULL,
	`sat_download_id` text,
	`sat_status` text,
	`es_cancelable` text,
	`estatus_cancelacion` text,
	`validacion_efos` text,
	`sat_checked_at` text,
	`efos_69b` text,
	`reconciliation` text,
	`amount_paid` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `received_cfdis_uuid_unique` ON `received_cfdis` (`tenant_id`,`environment`,`uuid`) WHERE uuid is not null;--> statement-breakpoint
CREATE INDEX `received_cfdis_tenant_idx` ON `received_cfdis` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `received_cfdis_emisor_idx` ON `received_cfdis` (`tenant_id`,`environment`,`emisor_rfc`,`id`);--> statement-breakpoint
CREATE INDEX `received_cfdis_fecha_idx` ON `received_cfdis` (`tenant_id`,`environment`,`fecha`);--> statement-breakpoint
CREATE INDEX `received_cfdis_validation_idx` ON `received_cfdis` (`tenant_id`,`environment`,`validation`,`id`);--> statement-breakpoint
CREATE INDEX `received_cfdis_sat_status_idx` ON `received_cfdis` (`tenant_id`,`environment`,`sat_status`,`id`);--> statement-breakpoint
CREATE INDEX `received_cfdis_efos_idx` ON `received_cfdis` (`tenant_id`,`environment`,`efos_69b`,`id`);--> statement-breakpoint
CREATE INDEX `received_cfdis_reconciliation_idx` ON `received_cfdis` (`tenant_id`,`environment`,`reconciliation`,`id`);