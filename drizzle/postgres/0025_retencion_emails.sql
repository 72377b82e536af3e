CREATE TABLE "retencion_emails" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"retencion_id" text collate "C" NOT NULL,
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
ALTER TABLE "retencion_emails" ADD CONSTRAINT "retencion_emails_retencion_id_retenciones_id_fk" FOREIGN KEY ("retencion_id") REFERENCES "public"."retenciones"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retencion_emails" ADD CONSTRAINT "retencion_emails_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "retencion_emails_retencion_idx" ON "retencion_emails" USING btree ("retencion_id","id");