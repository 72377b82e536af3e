-- Rate counters are a minute's (at most an hour's) bookkeeping: no WAL for them. A crash empties the table, which
-- opens new windows, as a restart did when the counters lived in memory.
ALTER TABLE rate_counters SET UNLOGGED;
