package dev.leasebox;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A lease backend by name for the settings' tests: an in-memory manager, refusing the address {@code nowhere}.
 * Registered only while {@link #onClassPath()} is open (through the thread's context class loader), so that no
 * other module's tests see a backend they did not ask for.
 */
public final class MemoryLeaseBackend implements LeaseBackend {

    /** Makes {@code memory} a backend {@code LeaseBackends} finds on this thread until closed. */
    public static AutoCloseable onClassPath() {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try {
            Path dir = Files.createTempDirectory("memory-backend");
            Path services = Files.createDirectories(dir.resolve("META-INF/services"));
            Files.writeString(services.resolve(LeaseBackend.class.getName()), MemoryLeaseBackend.class.getName() + "\n");
            URLClassLoader loader = new URLClassLoader(new URL[]{dir.toUri().toURL()}, MemoryLeaseBackend.class.getClassLoader());
            thread.setContextClassLoader(loader);
            return () -> {
                thread.setContextClassLoader(previous);
                loader.close();
            };
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String addressFormat() {
        return "NAME";
    }

    @Override
    public String addressKey() {
        return "name";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        if (settings.address().equals("nowhere")) {
            throw new dev.leasebox.lease.LeaseManagerException("nothing at " + settings.address()
                    + " within PT10S: check leasebox.memory.name");
        }
        return new InMemoryLeaseManager(Clock.systemUTC());
    }
}
