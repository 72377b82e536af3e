CREATE TABLE `login_addresses` (
	`key` text PRIMARY KEY NOT NULL,
	`account` text NOT NULL,
	`signed_in_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_addresses_account_idx` ON `login_addresses` (`account`,`signed_in_at`);--> statement-breakpoint
CREATE INDEX `login_addresses_signed_in_idx` ON `login_addresses` (`signed_in_at`);