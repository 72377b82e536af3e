CREATE TABLE "sat_download_packages" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"sat_download_id" text collate "C" NOT NULL,
	"package_id" text collate "C" NOT NULL,
	"bytes" "bytea",
	"downloads" bigint DEFAULT 0 NOT NULL,
	"downloaded_at" text collate "C",
	"processed_at" text collate "C",
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sat_downloads" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"direction" text collate "C" NOT NULL,
	"kind" text collate "C" NOT NULL,
	"desde" text collate "C" NOT NULL,
	"hasta" text collate "C" NOT NULL,
	"tipo" text collate "C",
	"rfc" text collate "C",
	"period_key" text collate "C" NOT NULL,
	"request_number" bigint NOT NULL,
	"id_solicitud" text collate "C",
	"status" text collate "C" DEFAULT 'requested' NOT NULL,
	"cod_estatus" text collate "C",
	"estado_solicitud" bigint,
	"codigo_estado_solicitud" text collate "C",
	"mensaje" text collate "C",
	"numero_cfdis" bigint,
	"packages" text collate "C",
	"attempts" bigint DEFAULT 0 NOT NULL,
	"error" text collate "C",
	"requested_at" text collate "C",
	"checked_at" text collate "C",
	"finished_at" text collate "C",
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sat_metadata" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"tenant_id" text collate "C" NOT NULL,
	"environment" text collate "C" NOT NULL,
	"uuid" text collate "C" NOT NULL,
	"rfc_emisor" text collate "C" NOT NULL,
	"nombre_emisor" text collate "C" NOT NULL,
	"rfc_receptor" text collate "C" NOT NULL,
	"nombre_receptor" text collate "C" NOT NULL,
	"rfc_pac" text collate "C" NOT NULL,
	"fecha_emision" text collate "C" NOT NULL,
	"fecha_certificacion_sat" text collate "C" NOT NULL,
	"monto" text collate "C" NOT NULL,
	"efecto_comprobante" text collate "C" NOT NULL,
	"estatus" text collate "C" NOT NULL,
	"fecha_cancelacion" text collate "C",
	"sat_download_id" text collate "C" NOT NULL,
	"created_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text collate "C" DEFAULT to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sat_download_packages" ADD CONSTRAINT "sat_download_packages_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sat_download_packages" ADD CONSTRAINT "sat_download_packages_sat_download_id_sat_downloads_id_fk" FOREIGN KEY ("sat_download_id") REFERENCES "public"."sat_downloads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sat_downloads" ADD CONSTRAINT "sat_downloads_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sat_metadata" ADD CONSTRAINT "sat_metadata_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sat_download_packages_unique" ON "sat_download_packages" USING btree ("sat_download_id","package_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sat_downloads_period_unique" ON "sat_downloads" USING btree ("tenant_id","environment","period_key","request_number");--> statement-breakpoint
CREATE INDEX "sat_downloads_tenant_idx" ON "sat_downloads" USING btree ("tenant_id","environment","id");--> statement-breakpoint
CREATE UNIQUE INDEX "sat_metadata_uuid_unique" ON "sat_metadata" USING btree ("tenant_id","environment","uuid");