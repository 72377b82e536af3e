CREATE TABLE "sat_download_syncs" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"enabled" smallint NOT NULL,
	"synced_through" text collate "C",
	"last_run_at" text collate "C",
	"last_result" text collate "C",
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sat_downloads" ADD COLUMN "origin" text collate "C" DEFAULT 'request' NOT NULL;--> statement-breakpoint
ALTER TABLE "sat_downloads" ADD COLUMN "followed_up_at" text collate "C";--> statement-breakpoint
ALTER TABLE "sat_download_syncs" ADD CONSTRAINT "sat_download_syncs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sat_download_syncs_tenant_unique" ON "sat_download_syncs" USING btree ("tenant_id","environment");