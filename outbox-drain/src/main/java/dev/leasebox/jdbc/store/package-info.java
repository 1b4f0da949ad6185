/**
 * The outbox table as a claim store: {@link dev.leasebox.jdbc.store.JdbcOutboxStore} claims, records claims,
 * completes and renews through a dialect; the helpers pick candidates, remember the queue's head, check the
 * schema, and listen to PostgreSQL's commit notifications.
 *
 * <p><b>Internal:</b> not API. Its types are public only so that other Leasebox packages can reach them; they
 * may change or go in any release without notice. Build drains with {@link dev.leasebox.Leasebox}.
 */
package dev.leasebox.jdbc.store;
