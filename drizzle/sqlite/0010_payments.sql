CREATE TABLE `cfdi_payment_documents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cfdi_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`related_uuid` text NOT NULL,
	`num_parcialidad` integer NOT NULL,
	`moneda` text NOT NULL,
	`imp_saldo_ant` text NOT NULL,
	`imp_pagado` text NOT NULL,
	`imp_saldo_insoluto` text NOT NULL,
	FOREIGN KEY (`cfdi_id`) REFERENCES `cfdis`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cfdi_payment_documents_related_idx` ON `cfdi_payment_documents` (`tenant_id`,`environment`,`related_uuid`);--> statement-breakpoint
CREATE INDEX `cfdi_payment_documents_cfdi_idx` ON `cfdi_payment_documents` (`cfdi_id`);