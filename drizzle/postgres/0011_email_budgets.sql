CREATE TABLE "email_budgets" (
	"tenant_id" text collate "C" PRIMARY KEY NOT NULL,
	"day" text collate "C" NOT NULL,
	"recipients" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_budgets" ADD CONSTRAINT "email_budgets_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;