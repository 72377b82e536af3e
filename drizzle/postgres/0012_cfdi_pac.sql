ALTER TABLE "cfdis" ADD COLUMN "pac" text collate "C";--> statement-breakpoint
-- Stamped before the column: the sandbox in test mode, SW (the only live provider until then) in live mode.
UPDATE "cfdis" SET "pac" = CASE "environment" WHEN 'test' THEN 'sandbox' ELSE 'sw' END WHERE "uuid" IS NOT NULL;
