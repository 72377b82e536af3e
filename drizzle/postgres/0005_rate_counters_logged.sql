-- Rate counters are logged after all: an unlogged table is emptied by crash recovery, and with several instances
-- sharing it that hands every key a fresh window mid-minute (the limit let through twice across a PostgreSQL crash).
ALTER TABLE rate_counters SET LOGGED;
