CREATE TABLE `cfdi_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`recipients` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_response` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`sent_at` text,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cfdi_emails_cfdi_idx` ON `cfdi_emails` (`cfdi_id`,`id`);--> statement-breakpoint
ALTER TABLE `cfdis` ADD `client_id` text;