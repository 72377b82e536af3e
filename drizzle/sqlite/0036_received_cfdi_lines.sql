CREATE TABLE `received_cfdi_lines` (
	`received_cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`kind` text NOT NULL,
	`position` integer NOT NULL,
	`target_uuid` text NOT NULL,
	`amount` text NOT NULL,
	`moneda` text NOT NULL,
	FOREIGN KEY (`received_cfdi_id`) REFERENCES `received_cfdis`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `received_cfdi_lines_target_idx` ON `received_cfdi_lines` (`tenant_id`,`environment`,`target_uuid`);--> statement-breakpoint
CREATE INDEX `received_cfdi_lines_doc_idx` ON `received_cfdi_lines` (`received_cfdi_id`);