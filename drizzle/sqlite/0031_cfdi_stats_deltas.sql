CREATE TABLE `cfdi_stats_deltas` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`mes` text NOT NULL,
	`tipo` text NOT NULL,
	`status` text NOT NULL,
	`moneda` text NOT NULL,
	`cantidad` integer NOT NULL,
	`total_micros` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cfdi_stats_deltas_tenant_idx` ON `cfdi_stats_deltas` (`tenant_id`,`environment`,`mes`);