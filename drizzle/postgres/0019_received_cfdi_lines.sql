CREATE TABLE "received_cfdi_lines" (
	"received_cfdi_id" text collate "C" NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"kind" text collate "C" NOT NULL,
	"position" bigint NOT NULL,
	"target_uuid" text collate "C" NOT NULL,
	"amount" text collate "C" NOT NULL,
	"moneda" text collate "C" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "received_cfdi_lines" ADD CONSTRAINT "received_cfdi_lines_received_cfdi_id_received_cfdis_id_fk" FOREIGN KEY ("received_cfdi_id") REFERENCES "public"."received_cfdis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_cfdi_lines" ADD CONSTRAINT "received_cfdi_lines_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "received_cfdi_lines_target_idx" ON "received_cfdi_lines" USING btree ("tenant_id","environment","target_uuid");--> statement-breakpoint
CREATE INDEX "received_cfdi_lines_doc_idx" ON "received_cfdi_lines" USING btree ("received_cfdi_id");