ALTER TABLE `cfdis` ADD `failure_reason` text;--> statement-breakpoint
ALTER TABLE `cfdis` ADD `withdrawn_at` text;--> statement-breakpoint
-- Invoices recorded before: the failure reason and the withdrawal time leave the summary JSON for their columns.
UPDATE `cfdis` SET `failure_reason` = json_extract(`summary`, '$.error'), `withdrawn_at` = json_extract(`summary`, '$.withdrawn_at'), `summary` = json_remove(`summary`, '$.error', '$.withdrawn_at') WHERE json_type(`summary`, '$.error') IS NOT NULL OR json_type(`summary`, '$.withdrawn_at') IS NOT NULL;
