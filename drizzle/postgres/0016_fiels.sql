CREATE TABLE "fiels" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"rfc" text collate "C" NOT NULL,
	"serial_number" text collate "C" NOT NULL,
	"name" text collate "C" NOT NULL,
	"valid_from" text collate "C" NOT NULL,
	"valid_to" text collate "C" NOT NULL,
	"certificate_der" "bytea" NOT NULL,
	"private_key_sealed" "bytea" NOT NULL,
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fiels" ADD CONSTRAINT "fiels_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fiels_tenant_unique" ON "fiels" USING btree ("tenant_id");