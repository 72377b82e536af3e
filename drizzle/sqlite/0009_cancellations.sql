CREATE TABLE `cfdi_cancellations` (
	`id` text PRIMARY KEY NOT NULL,
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`uuid` text NOT NULL,
	`motivo` text NOT NULL,
	`folio_sustitucion` text,
	`status` text NOT NULL,
	`requires_acceptance` integer NOT NULL,
	`estatus_cancelacion` text,
	`estado` text,
	`reason` text,
	`sandbox_scenario` text,
	`request_xml` blob NOT NULL,
	`acuse_xml` blob,
	`requested_at` text NOT NULL,
	`resolved_at` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cfdi_cancellations_cfdi_idx` ON `cfdi_cancellations` (`cfdi_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `cfdi_cancellations_active` ON `cfdi_cancellations` (`cfdi_id`) WHERE status = 'en_proceso';--> statement-breakpoint
CREATE TABLE `cfdi_relations` (
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`tipo_relacion` text NOT NULL,
	`related_uuid` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cfdi_relations_unique` ON `cfdi_relations` (`cfdi_id`,`tipo_relacion`,`related_uuid`);--> statement-breakpoint
CREATE INDEX `cfdi_relations_related_idx` ON `cfdi_relations` (`tenant_id`,`environment`,`related_uuid`);--> statement-breakpoint
CREATE TABLE `cfdi_status_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`from_status` text NOT NULL,
	`to_status` text NOT NULL,
	`reason` text NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cfdi_status_changes_cfdi_idx` ON `cfdi_status_changes` (`cfdi_id`,`id`);--> statement-breakpoint
CREATE TABLE `sandbox_cancellations` (
	`uuid` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`scenario` text NOT NULL,
	`requires_acceptance` integer NOT NULL,
	`requested_at` text NOT NULL,
	`acuse_xml` blob NOT NULL
);
