CREATE TABLE "cfdi_emails" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"cfdi_id" text collate "C" NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"recipients" text collate "C" NOT NULL,
	"status" text collate "C" NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"last_response" text collate "C",
	"created_at" text collate "C" NOT NULL,
	"updated_at" text collate "C" NOT NULL,
	"sent_at" text collate "C"
);
--> statement-breakpoint
ALTER TABLE "cfdis" ADD COLUMN "client_id" text collate "C";--> statement-breakpoint
ALTER TABLE "cfdi_emails" ADD CONSTRAINT "cfdi_emails_cfdi_id_cfdis_id_fk" FOREIGN KEY ("cfdi_id") REFERENCES "public"."cfdis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfdi_emails" ADD CONSTRAINT "cfdi_emails_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cfdi_emails_cfdi_idx" ON "cfdi_emails" USING btree ("cfdi_id","id");