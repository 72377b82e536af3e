CREATE TABLE "login_addresses" (
	"key" text collate "C" PRIMARY KEY NOT NULL,
	"account" text collate "C" NOT NULL,
	"signed_in_at" text collate "C" NOT NULL
);
--> statement-breakpoint
CREATE INDEX "login_addresses_account_idx" ON "login_addresses" USING btree ("account","signed_in_at");--> statement-breakpoint
CREATE INDEX "login_addresses_signed_in_idx" ON "login_addresses" USING btree ("signed_in_at");