/**
 * The drain engine: {@link dev.leasebox.drain.OutboxDrain} takes eligible outbox entries, hands each
 * to an {@link dev.leasebox.provider.OutboxProvider} and writes what became of it.
 *
 * <p>Delivery is <b>at-least-once</b>, never exactly-once. On the default claim path
 * ({@code useClaimLeases = true}) an entry is emitted only under a claim the drain obtained and
 * still holds (<b>claim before emit</b>), its result is written only under that claim's token
 * (<b>no stale finalization</b>), and an entry is emitted twice only when the earlier claim expired
 * or was lost before the later one was granted. The non-claiming compatibility path
 * ({@code useClaimLeases = false}) gives none of these across concurrent workers.
 *
 * <p>Entry points: {@link dev.leasebox.drain.OutboxDrain#runOnce()} (one synchronous cycle, for tests
 * and external schedulers), {@link dev.leasebox.drain.OutboxDrain#start()} (polling loops),
 * {@link dev.leasebox.drain.OutboxDrain#close()} (graceful shutdown). Configuration lives in
 * {@link dev.leasebox.drain.DrainOptions}; metrics hooks in {@link dev.leasebox.drain.DrainListener}.
 */
package dev.leasebox.drain;
