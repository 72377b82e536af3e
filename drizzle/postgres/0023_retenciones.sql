CREATE TABLE "retencion_documents" (
	"retencion_id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"xml" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "retenciones" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"uuid" text collate "C",
	"status" text collate "C" NOT NULL,
	"serie" text collate "C" NOT NULL,
	"folio" bigint NOT NULL,
	"folio_int" text collate "C" NOT NULL,
	"cve_retenc" text collate "C" NOT NULL,
	"receptor_rfc" text collate "C",
	"receptor_nombre" text collate "C" NOT NULL,
	"receptor_num_reg_id_trib" text collate "C",
	"mes_ini" bigint NOT NULL,
	"mes_fin" bigint NOT NULL,
	"ejercicio" bigint NOT NULL,
	"monto_tot_operacion" text collate "C" NOT NULL,
	"monto_tot_ret" text collate "C" NOT NULL,
	"fecha_exp" text collate "C" NOT NULL,
	"fecha_timbrado" text collate "C",
	"pac" text collate "C",
	"summary" text collate "C" NOT NULL,
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "retencion_documents" ADD CONSTRAINT "retencion_documents_retencion_id_retenciones_id_fk" FOREIGN KEY ("retencion_id") REFERENCES "public"."retenciones"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retencion_documents" ADD CONSTRAINT "retencion_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retenciones" ADD CONSTRAINT "retenciones_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "retenciones_uuid_unique" ON "retenciones" USING btree ("uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "retenciones_folio_unique" ON "retenciones" USING btree ("tenant_id","environment","serie","folio");--> statement-breakpoint
CREATE INDEX "retenciones_tenant_idx" ON "retenciones" USING btree ("tenant_id","environment","id");--> statement-breakpoint
CREATE INDEX "retenciones_tenant_receptor_idx" ON "retenciones" USING btree ("tenant_id","environment","receptor_rfc","id");--> statement-breakpoint
CREATE INDEX "retenciones_tenant_clave_idx" ON "retenciones" USING btree ("tenant_id","environment","cve_retenc","id");--> statement-breakpoint
CREATE INDEX "retenciones_tenant_ejercicio_idx" ON "retenciones" USING btree ("tenant_id","environment","ejercicio","id");--> statement-breakpoint
CREATE INDEX "retenciones_tenant_status_idx" ON "retenciones" USING btree ("tenant_id","environment","status","id") WHERE status <> 'vigente';