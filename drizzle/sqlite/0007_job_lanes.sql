DROP INDEX `jobs_due_idx`;--> statement-breakpoint
ALTER TABLE `jobs` ADD `lane` text;--> statement-breakpoint
CREATE INDEX `jobs_lane_idx` ON `jobs` (`status`,`type`,`lane`,`run_at`);--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`status`,`type`,`run_at`);