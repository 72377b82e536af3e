CREATE TABLE "rate_counters" (
	"key" text collate "C" PRIMARY KEY NOT NULL,
	"window_end" bigint NOT NULL,
	"hits" bigint NOT NULL
);
