CREATE TABLE `email_budgets` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`day` text NOT NULL,
	`recipients` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
