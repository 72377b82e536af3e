CREATE TABLE `cfdi_stats` (
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`mes` text NOT NULL,
	`tipo` text NOT NULL,
	`status` text NOT NULL,
	`moneda` text NOT NULL,
	`cantidad` integer NOT NULL,
	`total_micros` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `environment`, `mes`, `tipo`, `status`, `moneda`)
);
