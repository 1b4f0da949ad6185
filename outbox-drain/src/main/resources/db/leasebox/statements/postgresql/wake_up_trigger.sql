-- The table's catalog names and the state of its V7 trigger (NULL: none; 'O' or 'A': fires; 'D': disabled;
-- 'R': fires only for replication sessions). Parameters: the trigger's name, the table's name as configured.
SELECT n.nspname, c.relname, t.tgenabled
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_trigger t ON t.tgrelid = c.oid AND t.tgname = ?
WHERE c.oid = to_regclass(?)
