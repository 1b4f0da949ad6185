package dev.leasebox.drain;

import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.ClaimRequest;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How an {@link OutboxDrain} runs. Build with {@link #builder()}; every option has a safe default and
 * is validated when built, failing with one line that names the option and the bad value.
 *
 * <p><b>{@code useClaimLeases}</b> (default {@code true}): the drain claims every entry before emitting
 * it and finalizes it only under that claim, so cooperating workers do not emit the same entry
 * while its claim stands. {@code false} selects the <em>non-claiming compatibility path</em>:
 * entries are selected with {@code findPending}/{@code findRetryReady} and written back with
 * {@code save}, unconditionally. Two workers on that path can select and emit the same entry at
 * the same time, and the later save overwrites the earlier: use it only with one active worker, or
 * workers reading disjoint slices, with a store that has no claim columns, and accept duplicate
 * emissions.
 *
 * <p>Times: {@code leaseDuration}, {@code claimSafetyMargin} and the retry backoff are measured by the
 * drain's injected {@link java.time.Clock} (they decide correctness); {@code renewalInterval}, the idle
 * polling backoff and {@code shutdownTimeout} pace threads and are measured in real time.
 *
 * @param useClaimLeases    claim before emit (default true); false is the non-claiming compatibility path
 * @param batchSize         entries claimed per cycle (default 100; 1..10000)
 * @param leaseDuration     how long a claim lasts unless renewed (default 30 s)
 * @param renewalInterval   how often an in-flight batch's claims are renewed (default a third of the lease);
 *                          shorter than {@code leaseDuration - claimSafetyMargin}
 * @param claimSafetyMargin a claim counts as lost this long before its expiry (default a tenth of the
 *                          lease, at most 2 s), to absorb clock drift and store latency
 * @param maxAttempts       emission attempts before a retryable failure is dead-lettered (default 10)
 * @param initialBackoff    the retry backoff's first ceiling (default 1 s)
 * @param maxBackoff        the retry backoff's cap (default 5 min)
 * @param backoffMultiplier how much the retry backoff's ceiling grows per failed attempt (default 2; 1..100)
 * @param backoffJitter     the fraction of the ceiling a retry delay may fall short of it (default 1.0, full
 *                          jitter: anywhere in [0, ceiling]; 0: exactly the ceiling); see {@link Backoff}
 * @param concurrency       claim loops, each on its own thread, started by {@link OutboxDrain#start()} (default 1)
 * @param idlePollMin       the first wait after a cycle that found nothing (default 100 ms)
 * @param idlePollMax       the idle wait doubles up to this (default 5 s)
 * @param shutdownTimeout   how long {@link OutboxDrain#close()} waits for in-flight emissions (default 30 s)
 * @param owner             the claim owner (worker id) written to claimed rows (default host-pid-random)
 * @param whenAttemptsExhausted what a retryable failure at {@code maxAttempts} becomes (default
 *                          {@link AttemptsExhausted#DEAD_LETTER}); with per-key ordering this decides
 *                          whether a failing head lets its key move on
 */
public record DrainOptions(boolean useClaimLeases, int batchSize, Duration leaseDuration, Duration renewalInterval,
                           Duration claimSafetyMargin, int maxAttempts, Duration initialBackoff, Duration maxBackoff,
                           double backoffMultiplier, double backoffJitter, int concurrency, Duration idlePollMin, Duration idlePollMax, Duration shutdownTimeout,
                           String owner, AttemptsExhausted whenAttemptsExhausted) {

    public static final int MAX_CONCURRENCY = 256;

    /** What happens to an entry whose retryable failures reach {@code maxAttempts}. */
    public enum AttemptsExhausted {
        /** Dead-letter it: the entry is terminal, and (in ordered mode) its key moves on. */
        DEAD_LETTER,
        /**
         * Keep retrying, the backoff at its cap: the entry stays non-terminal, and (in ordered mode) its key
         * waits for it, however long, until it is delivered or an operator dead-letters it.
         */
        KEEP_RETRYING
    }

    public DrainOptions {
        require(leaseDuration, "leaseDuration");
        require(renewalInterval, "renewalInterval");
        require(claimSafetyMargin, "claimSafetyMargin");
        require(initialBackoff, "initialBackoff");
        require(maxBackoff, "maxBackoff");
        require(idlePollMin, "idlePollMin");
        require(idlePollMax, "idlePollMax");
        require(shutdownTimeout, "shutdownTimeout");
        require(owner, "owner");
        require(whenAttemptsExhausted, "whenAttemptsExhausted");
        check(batchSize >= 1 && batchSize <= ClaimRequest.MAX_BATCH_SIZE,
                "batchSize must be in 1.." + ClaimRequest.MAX_BATCH_SIZE + ", was " + batchSize);
        check(isPositive(leaseDuration), "leaseDuration must be positive, was " + leaseDuration);
        check(!claimSafetyMargin.isNegative() && claimSafetyMargin.compareTo(leaseDuration) < 0,
                "claimSafetyMargin must be in [0, leaseDuration=" + leaseDuration + "), was " + claimSafetyMargin);
        Duration usable = leaseDuration.minus(claimSafetyMargin);
        check(isPositive(renewalInterval) && renewalInterval.compareTo(usable) < 0,
                "renewalInterval must be positive and shorter than leaseDuration - claimSafetyMargin (" + usable
                        + ") so claims are renewed before they count as lost, was " + renewalInterval);
        check(maxAttempts >= 1, "maxAttempts must be at least 1, was " + maxAttempts);
        check(initialBackoff.toMillis() >= 1, "initialBackoff must be at least 1ms, was " + initialBackoff);
        check(maxBackoff.compareTo(initialBackoff) >= 0,
                "maxBackoff must be at least initialBackoff (" + initialBackoff + "), was " + maxBackoff);
        check(backoffMultiplier >= 1.0 && backoffMultiplier <= Backoff.MAX_MULTIPLIER,
                "backoffMultiplier must be in 1.." + (int) Backoff.MAX_MULTIPLIER + ", was " + backoffMultiplier);
        check(backoffJitter >= 0.0 && backoffJitter <= 1.0, "backoffJitter must be in 0..1, was " + backoffJitter);
        check(concurrency >= 1 && concurrency <= MAX_CONCURRENCY,
                "concurrency must be in 1.." + MAX_CONCURRENCY + ", was " + concurrency);
        check(isPositive(idlePollMin), "idlePollMin must be positive, was " + idlePollMin);
        check(idlePollMax.compareTo(idlePollMin) >= 0,
                "idlePollMax must be at least idlePollMin (" + idlePollMin + "), was " + idlePollMax);
        check(!shutdownTimeout.isNegative(), "shutdownTimeout must not be negative, was " + shutdownTimeout);
        check(!owner.isBlank(), "owner must not be blank, was '" + owner + "'");
    }

    /** The defaults, with a fresh host-pid-random owner. */
    public static DrainOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        return new Builder().useClaimLeases(useClaimLeases).batchSize(batchSize).leaseDuration(leaseDuration)
                .renewalInterval(renewalInterval).claimSafetyMargin(claimSafetyMargin).maxAttempts(maxAttempts)
                .backoff(initialBackoff, backoffMultiplier, maxBackoff, backoffJitter).concurrency(concurrency).idlePolling(idlePollMin, idlePollMax)
                .shutdownTimeout(shutdownTimeout).owner(owner).whenAttemptsExhausted(whenAttemptsExhausted);
    }

    /** The default owner: {@code host-pid-random}, unique per drain instance. */
    public static String defaultOwner() {
        byte[] random = new byte[3];
        ThreadLocalRandom.current().nextBytes(random);
        return hostName() + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "unknown-host";
        }
    }

    private static boolean isPositive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    private static void require(Object value, String option) {
        if (value == null) {
            throw new DrainConfigurationException("DrainOptions." + option + " must be set, was null");
        }
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new DrainConfigurationException("DrainOptions." + message);
        }
    }

    /** Builds {@link DrainOptions}; unset options take their defaults, derived ones from the lease duration. */
    public static final class Builder {
        private boolean useClaimLeases = true;
        private int batchSize = 100;
        private Duration leaseDuration = Duration.ofSeconds(30);
        private Duration renewalInterval;
        private Duration claimSafetyMargin;
        private int maxAttempts = 10;
        private Duration initialBackoff = Duration.ofSeconds(1);
        private Duration maxBackoff = Duration.ofMinutes(5);
        private double backoffMultiplier = Backoff.DEFAULT_MULTIPLIER;
        private double backoffJitter = Backoff.DEFAULT_JITTER;
        private int concurrency = 1;
        private Duration idlePollMin = Duration.ofMillis(100);
        private Duration idlePollMax = Duration.ofSeconds(5);
        private Duration shutdownTimeout = Duration.ofSeconds(30);
        private String owner;
        private AttemptsExhausted whenAttemptsExhausted = AttemptsExhausted.DEAD_LETTER;

        private Builder() {
        }

        /**
         * Claim before emit (true, the default), or the non-claiming compatibility path (false), which
         * lets concurrent workers emit the same entry: see the class comment.
         */
        public Builder useClaimLeases(boolean useClaimLeases) {
            this.useClaimLeases = useClaimLeases;
            return this;
        }

        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        public Builder leaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
            return this;
        }

        public Builder renewalInterval(Duration renewalInterval) {
            this.renewalInterval = renewalInterval;
            return this;
        }

        public Builder claimSafetyMargin(Duration claimSafetyMargin) {
            this.claimSafetyMargin = claimSafetyMargin;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * The retry backoff's first ceiling and cap (defaults 1 s and 5 min); the multiplier and jitter
         * keep their values (defaults 2 and 1.0: full jitter over {@code [0, min(cap, initial * 2^(attempt-1))]}).
         */
        public Builder backoff(Duration initial, Duration cap) {
            this.initialBackoff = initial;
            this.maxBackoff = cap;
            return this;
        }

        /**
         * The whole retry backoff: after failed attempt {@code n} a delay drawn from
         * {@code [c * (1 - jitter), c]} where {@code c = min(cap, initial * multiplier^(n-1))}; see {@link Backoff}.
         */
        public Builder backoff(Duration initial, double multiplier, Duration cap, double jitter) {
            this.initialBackoff = initial;
            this.backoffMultiplier = multiplier;
            this.maxBackoff = cap;
            this.backoffJitter = jitter;
            return this;
        }

        /** How much the retry backoff's ceiling grows per failed attempt (default 2). */
        public Builder backoffMultiplier(double multiplier) {
            this.backoffMultiplier = multiplier;
            return this;
        }

        /** The fraction of the ceiling a retry delay may fall short of it (default 1.0, full jitter). */
        public Builder backoffJitter(double jitter) {
            this.backoffJitter = jitter;
            return this;
        }

        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /** The idle polling backoff: starts at {@code min} after an empty cycle, doubles up to {@code max}. */
        public Builder idlePolling(Duration min, Duration max) {
            this.idlePollMin = min;
            this.idlePollMax = max;
            return this;
        }

        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
            return this;
        }

        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        public Builder whenAttemptsExhausted(AttemptsExhausted policy) {
            this.whenAttemptsExhausted = policy;
            return this;
        }

        /** @throws DrainConfigurationException naming the first bad option and its value */
        public DrainOptions build() {
            require(leaseDuration, "leaseDuration");
            check(isPositive(leaseDuration), "leaseDuration must be positive, was " + leaseDuration);
            Duration margin = claimSafetyMargin != null ? claimSafetyMargin : LeaseRequest.defaultSafetyMargin(leaseDuration);
            Duration renewal = renewalInterval != null ? renewalInterval : leaseDuration.dividedBy(3);
            return new DrainOptions(useClaimLeases, batchSize, leaseDuration, renewal, margin, maxAttempts,
                    initialBackoff, maxBackoff, backoffMultiplier, backoffJitter, concurrency, idlePollMin, idlePollMax, shutdownTimeout,
                    owner != null ? owner : defaultOwner(), whenAttemptsExhausted);
        }
    }
}
