CREATE TABLE `receipt_settings` (
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`next_folio` integer DEFAULT 1 NOT NULL,
	`auto_global_periodicidad` text,
	`auto_global_through` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `receipt_settings_unique` ON `receipt_settings` (`tenant_id`,`environment`);--> statement-breakpoint
CREATE TABLE `receipts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`folio` text NOT NULL,
	`status` text NOT NULL,
	`fecha` text NOT NULL,
	`forma_pago` text NOT NULL,
	`conceptos` text NOT NULL,
	`subtotal` text NOT NULL,
	`descuento` text,
	`total` text NOT NULL,
	`taxes` text NOT NULL,
	`key_hash` text NOT NULL,
	`expires_at` text NOT NULL,
	`cfdi_id` text,
	`invoiced_by` text,
	`invoiced_at` text,
	`cancelled_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `receipts_folio_unique` ON `receipts` (`tenant_id`,`environment`,`folio`);--> statement-breakpoint
CREATE UNIQUE INDEX `receipts_key_unique` ON `receipts` (`key_hash`);--> statement-breakpoint
CREATE INDEX `receipts_tenant_idx` ON `receipts` (`tenant_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `receipts_period_idx` ON `receipts` (`tenant_id`,`environment`,`status`,`fecha`);--> statement-breakpoint
CREATE INDEX `receipts_cfdi_idx` ON `receipts` (`cfdi_id`);