CREATE TABLE `cfdi_pdfs` (
	`cfdi_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`pdf` blob NOT NULL,
	`rendered_at` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
