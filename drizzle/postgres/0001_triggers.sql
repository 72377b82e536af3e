-- What the SQLite migrations keep with triggers, as PostgreSQL spells it.
-- cfdi_stats: whatever writes a CFDI moves its counters in the same transaction (exact millionths of Total).
CREATE FUNCTION cfdi_stats_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE cfdi_stats SET cantidad = cantidad - 1, total_micros = total_micros - (OLD.total::numeric * 1000000)::bigint
    WHERE tenant_id = OLD.tenant_id AND environment = OLD.environment AND mes = substr(OLD.fecha, 1, 7) AND tipo = OLD.tipo
      AND status = OLD.status AND moneda = OLD.moneda;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO cfdi_stats (tenant_id, environment, mes, tipo, status, moneda, cantidad, total_micros)
    VALUES (NEW.tenant_id, NEW.environment, substr(NEW.fecha, 1, 7), NEW.tipo, NEW.status, NEW.moneda, 1, (NEW.total::numeric * 1000000)::bigint)
    ON CONFLICT (tenant_id, environment, mes, tipo, status, moneda)
    DO UPDATE SET cantidad = cfdi_stats.cantidad + 1, total_micros = cfdi_stats.total_micros + excluded.total_micros;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cfdi_stats_insert AFTER INSERT ON cfdis FOR EACH ROW EXECUTE FUNCTION cfdi_stats_move();
--> statement-breakpoint
CREATE TRIGGER cfdi_stats_update AFTER UPDATE OF tenant_id, environment, fecha, tipo, status, moneda, total ON cfdis FOR EACH ROW
WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id OR OLD.environment IS DISTINCT FROM NEW.environment OR OLD.fecha IS DISTINCT FROM NEW.fecha
  OR OLD.tipo IS DISTINCT FROM NEW.tipo OR OLD.status IS DISTINCT FROM NEW.status OR OLD.moneda IS DISTINCT FROM NEW.moneda OR OLD.total IS DISTINCT FROM NEW.total)
EXECUTE FUNCTION cfdi_stats_move();
--> statement-breakpoint
CREATE TRIGGER cfdi_stats_delete AFTER DELETE ON cfdis FOR EACH ROW EXECUTE FUNCTION cfdi_stats_move();
--> statement-breakpoint
-- The audit log is append-only: no route, command or migration may rewrite or remove what happened.
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END $$;
--> statement-breakpoint
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
