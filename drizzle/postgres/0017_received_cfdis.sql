CREATE TABLE "received_cfdis" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"uuid" text collate "C",
	"sha256" text collate "C" NOT NULL,
	"xml" "bytea" NOT NULL,
	"version" text collate "C" NOT NULL,
	"validation" text collate "C" NOT NULL,
	"checks" text collate "C" NOT NULL,
	"emisor_rfc" text collate "C",
	"emisor_nombre" text collate "C",
	"receptor_rfc" text collate "C",
	"fecha" text collate "C",
	"tipo" text collate "C",
	"metodo_pago" text collate "C",
	"forma_pago" text collate "C",
	"moneda" text collate "C",
	"total" text collate "C",
	"serie" text collate "C",
	"folio" text collate "C",
	"source" text collate "C" NOT NULL,
	"sat_download_id" text collate "C",
	"sat_status" text collate "C",
	"es_cancelable" text collate "C",
	"estatus_cancelacion" text collate "C",
	"validacion_efos" text collate "C",
	"sat_checked_at" text collate "C",
	"efos_69b" text collate "C",
	"reconciliation" text collate "C",
	"amount_paid" text collate "C",
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "received_cfdis" ADD CONSTRAINT "received_cfdis_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "received_cfdis_uuid_unique" ON "received_cfdis" USING btree ("tenant_id","environment","uuid") WHERE uuid is not null;--> statement-breakpoint
CREATE INDEX "received_cfdis_tenant_idx" ON "received_cfdis" USING btree ("tenant_id","environment","id");--> statement-breakpoint
CREATE INDEX "received_cfdis_emisor_idx" ON "received_cfdis" USING btree ("tenant_id","environment","emisor_rfc","id");--> statement-breakpoint
CREATE INDEX "received_cfdis_fecha_idx" ON "received_cfdis" USING btree ("tenant_id","environment","fecha");--> statement-breakpoint
CREATE INDEX "received_cfdis_validation_idx" ON "received_cfdis" USING btree ("tenant_id","environment","validation","id");--> statement-breakpoint
CREATE INDEX "received_cfdis_sat_status_idx" ON "received_cfdis" USING btree ("tenant_id","environment","sat_status","id");--> statement-breakpoint
CREATE INDEX "received_cfdis_efos_idx" ON "received_cfdis" USING btree ("tenant_id","environment","efos_69b","id");--> statement-breakpoint
CREATE INDEX "received_cfdis_reconciliation_idx" ON "received_cfdis" USING btree ("tenant_id","environment","reconciliation","id");