-- cfdi_stats kept by triggers: whatever writes a CFDI (issue, stamp, failure, cancellation, withdrawal) moves its
-- counters in the same transaction. Totals are exact integers of millionths parsed from the decimal text.
INSERT INTO cfdi_stats (tenant_id, environment, mes, tipo, status, moneda, cantidad, total_micros)
SELECT tenant_id, environment, substr(fecha, 1, 7), tipo, status, moneda, count(*), sum((CASE WHEN instr(total, '.') = 0 THEN CAST(total AS INTEGER) * 1000000 ELSE CAST(substr(total, 1, instr(total, '.') - 1) AS INTEGER) * 1000000 + CAST(substr(substr(total, instr(total, '.') + 1) || '000000', 1, 6) AS INTEGER) END))
FROM cfdis GROUP BY tenant_id, environment, substr(fecha, 1, 7), tipo, status, moneda;
--> statement-breakpoint
CREATE TRIGGER cfdi_stats_insert AFTER INSERT ON cfdis BEGIN
  INSERT INTO cfdi_stats (tenant_id, environment, mes, tipo, status, moneda, cantidad, total_micros)
  VALUES (NEW.tenant_id, NEW.environment, substr(NEW.fecha, 1, 7), NEW.tipo, NEW.status, NEW.moneda, 1, (CASE WHEN instr(NEW.total, '.') = 0 THEN CAST(NEW.total AS INTEGER) * 1000000 ELSE CAST(substr(NEW.total, 1, instr(NEW.total, '.') - 1) AS INTEGER) * 1000000 + CAST(substr(substr(NEW.total, instr(NEW.total, '.') + 1) || '000000', 1, 6) AS INTEGER) END))
  ON CONFLICT (tenant_id, environment, mes, tipo, status, moneda) DO UPDATE SET cantidad = cantidad + 1, total_micros = total_micros + excluded.total_micros;
END;
--> statement-breakpoint
CREATE TRIGGER cfdi_stats_update AFTER UPDATE OF tenant_id, environment, fecha, tipo, status, moneda, total ON cfdis
WHEN OLD.tenant_id IS NOT NEW.tenant_id OR OLD.environment IS NOT NEW.environment OR OLD.fecha IS NOT NEW.fecha OR OLD.tipo IS NOT NEW.tipo
  OR OLD.status IS NOT NEW.status OR OLD.moneda IS NOT NEW.moneda OR OLD.total IS NOT NEW.total
BEGIN
  UPDATE cfdi_stats SET cantidad = cantidad - 1, total_micros = total_micros - (CASE WHEN instr(OLD.total, '.') = 0 THEN CAST(OLD.total AS INTEGER) * 1000000 ELSE CAST(substr(OLD.total, 1, instr(OLD.total, '.') - 1) AS INTEGER) * 1000000 + CAST(substr(substr(OLD.total, instr(OLD.total, '.') + 1) || '000000', 1, 6) AS INTEGER) END)
  WHERE tenant_id = OLD.tenant_id AND environment = OLD.environment AND mes = substr(OLD.fecha, 1, 7) AND tipo = OLD.tipo AND status = OLD.status AND moneda = OLD.moneda;
  INSERT INTO cfdi_stats (tenant_id, environment, mes, tipo, status, moneda, cantidad, total_micros)
  VALUES (NEW.tenant_id, NEW.environment, substr(NEW.fecha, 1, 7), NEW.tipo, NEW.status, NEW.moneda, 1, (CASE WHEN instr(NEW.total, '.') = 0 THEN CAST(NEW.total AS INTEGER) * 1000000 ELSE CAST(substr(NEW.total, 1, instr(NEW.total, '.') - 1) AS INTEGER) * 1000000 + CAST(substr(substr(NEW.total, instr(NEW.total, '.') + 1) || '000000', 1, 6) AS INTEGER) END))
  ON CONFLICT (tenant_id, environment, mes, tipo, status, moneda) DO UPDATE SET cantidad = cantidad + 1, total_micros = total_micros + excluded.total_micros;
END;
--> statement-breakpoint
CREATE TRIGGER cfdi_stats_delete AFTER DELETE ON cfdis BEGIN
  UPDATE cfdi_stats SET cantidad = cantidad - 1, total_micros = total_micros - (CASE WHEN instr(OLD.total, '.') = 0 THEN CAST(OLD.total AS INTEGER) * 1000000 ELSE CAST(substr(OLD.total, 1, instr(OLD.total, '.') - 1) AS INTEGER) * 1000000 + CAST(substr(substr(OLD.total, instr(OLD.total, '.') + 1) || '000000', 1, 6) AS INTEGER) END)
  WHERE tenant_id = OLD.tenant_id AND environment = OLD.environment AND mes = substr(OLD.fecha, 1, 7) AND tipo = OLD.tipo AND status = OLD.status AND moneda = OLD.moneda;
END;
