ALTER TABLE "retenciones" ADD COLUMN "batch_key" text collate "C";--> statement-breakpoint
ALTER TABLE "retenciones" ADD COLUMN "batch_hash" text collate "C";--> statement-breakpoint
CREATE UNIQUE INDEX "retenciones_batch_key_unique" ON "retenciones" USING btree ("tenant_id","environment","batch_key");