CREATE TABLE "sat_69b_entries" (
	"list_id" text collate "C" NOT NULL,
	"tenant_id" text collate "C",
	"rfc" text collate "C" NOT NULL,
	"situacion" text collate "C" NOT NULL,
	CONSTRAINT "sat_69b_entries_list_id_rfc_pk" PRIMARY KEY("list_id","rfc")
);
--> statement-breakpoint
CREATE TABLE "sat_69b_lists" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C",
	"environment" text collate "C",
	"source" text collate "C" NOT NULL,
	"list_date" text collate "C",
	"entries" bigint NOT NULL,
	"loaded_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sat_69b_entries" ADD CONSTRAINT "sat_69b_entries_list_id_sat_69b_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."sat_69b_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sat_69b_entries" ADD CONSTRAINT "sat_69b_entries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sat_69b_lists" ADD CONSTRAINT "sat_69b_lists_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;