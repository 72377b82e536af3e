ALTER TABLE "webhooks" ADD COLUMN "previous_secret_sealed" "bytea";--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_expires_at" text collate "C";