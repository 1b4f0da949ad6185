-- The db-connections-kill fault: terminates every connection of this run's workers, found by their
-- application_name <owner>@<schema> (parameter: '%@<schema>'); the harness's own connections carry none.
SELECT count(pg_terminate_backend(pid))::int
FROM pg_stat_activity
WHERE application_name LIKE ? AND pid <> pg_backend_pid()
