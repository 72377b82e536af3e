CREATE TABLE "cfdi_pdfs" (
	"cfdi_id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"fingerprint" text collate "C" NOT NULL,
	"pdf" "bytea" NOT NULL,
	"rendered_at" text collate "C" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cfdi_pdfs" ADD CONSTRAINT "cfdi_pdfs_cfdi_id_cfdis_id_fk" FOREIGN KEY ("cfdi_id") REFERENCES "public"."cfdis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfdi_pdfs" ADD CONSTRAINT "cfdi_pdfs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;