CREATE TABLE `retencion_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`retencion_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`recipients` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_response` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`sent_at` text,
	FOREIGN KEY (`retencion_id`) REFERENCES `retenciones`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `retencion_emails_retencion_idx` ON `retencion_emails` (`retencion_id`,`id`);