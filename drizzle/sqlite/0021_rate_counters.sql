CREATE TABLE `rate_counters` (
	`key` text PRIMARY KEY NOT NULL,
	`window_end` integer NOT NULL,
	`hits` integer NOT NULL
);
