CREATE TABLE "receipt_settings" (
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"next_folio" bigint DEFAULT 1 NOT NULL,
	"auto_global_periodicidad" text collate "C",
	"auto_global_through" text collate "C",
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receipts" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"folio" text collate "C" NOT NULL,
	"status" text collate "C" NOT NULL,
	"fecha" text collate "C" NOT NULL,
	"forma_pago" text collate "C" NOT NULL,
	"conceptos" text collate "C" NOT NULL,
	"subtotal" text collate "C" NOT NULL,
	"descuento" text collate "C",
	"total" text collate "C" NOT NULL,
	"taxes" text collate "C" NOT NULL,
	"key_hash" text collate "C" NOT NULL,
	"expires_at" text collate "C" NOT NULL,
	"cfdi_id" text collate "C",
	"invoiced_by" text collate "C",
	"invoiced_at" text collate "C",
	"cancelled_at" text collate "C",
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "receipt_settings" ADD CONSTRAINT "receipt_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_cfdi_id_cfdis_id_fk" FOREIGN KEY ("cfdi_id") REFERENCES "public"."cfdis"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_settings_unique" ON "receipt_settings" USING btree ("tenant_id","environment");--> statement-breakpoint
CREATE UNIQUE INDEX "receipts_folio_unique" ON "receipts" USING btree ("tenant_id","environment","folio");--> statement-breakpoint
CREATE UNIQUE INDEX "receipts_key_unique" ON "receipts" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "receipts_tenant_idx" ON "receipts" USING btree ("tenant_id","environment","id");--> statement-breakpoint
CREATE INDEX "receipts_period_idx" ON "receipts" USING btree ("tenant_id","environment","status","fecha");--> statement-breakpoint
CREATE INDEX "receipts_cfdi_idx" ON "receipts" USING btree ("cfdi_id");