/**
 * One class per database: the SQL a store, a writer and the in-table leases run, read from the dialect's
 * {@code .sql} resources, with what each database needs around it (pinned plans on PostgreSQL, deadlock
 * retries on MariaDB, row and array encodings).
 *
 * <p><b>Internal:</b> not API. Its types are public only so that other Leasebox packages can reach them; they
 * may change or go in any release without notice. Build drains with {@link dev.leasebox.Leasebox}.
 */
package dev.leasebox.jdbc.dialect;
