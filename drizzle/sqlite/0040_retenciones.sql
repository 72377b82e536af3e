CREATE TABLE `retencion_documents` (
	`retencion_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`xml` blob NOT NULL,
	FOREIGN KEY (`retencion_id`) REFERENCES `retenciones`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `retenciones` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`uuid` text,
	`status` text NOT NULL,
	`serie` text NOT NULL,
	`folio` integer NOT NULL,
	`folio_int` text NOT NULL,
	`cve_retenc` text NOT NULL,
	`receptor_rfc` text,
	`receptor_nombre` text NOT NULL,
	`receptor_num_reg_id_trib` text,
	`mes_ini` integer NOT NULL,
	`mes_fin` integer NOT NULL,
	`ejercicio` integer NOT NULL,
	`monto_tot_operacion` text NOT NULL,
	`monto_tot_ret` text NOT NULL,
	`fecha_exp` text NOT NULL,
	`fecha_timbrado` text,
	`pac` text,
	`summary` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `retenciones_uuid_unique` ON `retenciones` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `retenciones_folio_unique` ON `retenciones` (`tenant_id`,`environment`,`serie`,`folio`);--> statement-breakpoint
CREATE INDEX `retenciones_tenant_idx` ON `retenciones` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `retenciones_tenant_receptor_idx` ON `retenciones` (`tenant_id`,`environment`,`receptor_rfc`,`id`);--> statement-breakpoint
CREATE INDEX `retenciones_tenant_clave_idx` ON `retenciones` (`tenant_id`,`environment`,`cve_retenc`,`id`);--> statement-breakpoint
CREATE INDEX `retenciones_tenant_ejercicio_idx` ON `retenciones` (`tenant_id`,`environment`,`ejercicio`,`id`);--> statement-breakpoint
CREATE INDEX `retenciones_tenant_status_idx` ON `retenciones` (`tenant_id`,`environment`,`status`,`id`) WHERE status <> 'vigente';