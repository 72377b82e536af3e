ALTER TABLE `cfdi_payment_documents` ADD `paid_cfdi_id` text;--> statement-breakpoint
ALTER TABLE `cfdi_payment_documents` ADD `released_at` text;--> statement-breakpoint
-- Instalments recorded before: the invoice issued here that each pays, and whether its Pago still stands.
UPDATE `cfdi_payment_documents` SET `paid_cfdi_id` = (SELECT c.`id` FROM `cfdis` c WHERE c.`uuid` = `cfdi_payment_documents`.`related_uuid` AND c.`tenant_id` = `cfdi_payment_documents`.`tenant_id` AND c.`environment` = `cfdi_payment_documents`.`environment`);--> statement-breakpoint
UPDATE `cfdi_payment_documents` SET `released_at` = (SELECT c.`updated_at` FROM `cfdis` c WHERE c.`id` = `cfdi_payment_documents`.`cfdi_id`) WHERE `cfdi_id` IN (SELECT `id` FROM `cfdis` WHERE `status` IN ('fallido', 'cancelado'));--> statement-breakpoint
CREATE UNIQUE INDEX `cfdi_payment_documents_instalment_unique` ON `cfdi_payment_documents` (`tenant_id`,`environment`,`paid_cfdi_id`,`num_parcialidad`) WHERE released_at is null;