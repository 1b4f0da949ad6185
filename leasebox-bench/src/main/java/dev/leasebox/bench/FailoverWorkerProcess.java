package dev.leasebox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A worker JVM and the times of what it traced, per entry ({@link FailoverTrace}). */
final class FailoverWorkerProcess {
    final Process process;
    final String owner;
    final Path log;
    final Map<Long, List<Long>> emissions = new ConcurrentHashMap<>();
    final Map<Long, List<Long>> requests = new ConcurrentHashMap<>();
    final Map<Long, List<Long>> grants = new ConcurrentHashMap<>();
    final Map<Long, List<Long>> claims = new ConcurrentHashMap<>();
    final List<Long> requestTimes = java.util.Collections.synchronizedList(new ArrayList<>());
    final List<Long> claimTimes = java.util.Collections.synchronizedList(new ArrayList<>());

    private FailoverWorkerProcess(Process process, String owner, Path log) {
        this.process = process;
        this.owner = owner;
        this.log = log;
    }

    static FailoverWorkerProcess start(List<String> command, String owner) throws IOException {
        Path log = Files.createTempFile("leasebox-failover-" + owner + "-", ".log");
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        FailoverWorkerProcess worker = new FailoverWorkerProcess(process, owner, log);
        Thread reader = new Thread(worker::read, "leasebox-failover-reader-" + owner);
        reader.setDaemon(true);
        reader.start();
        return worker;
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.split(" ");
                if (parts.length != 3) {
                    continue;
                }
                switch (parts[0]) {
                    case "EMIT" -> add(emissions, Long.parseLong(parts[1]), Long.parseLong(parts[2]));
                    case "REQ" -> {
                        requestTimes.add(Long.parseLong(parts[1]));
                        addAll(requests, parts[2], Long.parseLong(parts[1]));
                    }
                    case "GOT" -> addAll(grants, parts[2], Long.parseLong(parts[1]));
                    case "CLAIM" -> {
                        claimTimes.add(Long.parseLong(parts[1]));
                        addAll(claims, parts[2], Long.parseLong(parts[1]));
                    }
                    default -> {
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process was killed: its output ends here
        }
    }

    private static void addAll(Map<Long, List<Long>> events, String ids, long at) {
        if (!ids.equals("-")) {
            for (String id : ids.split(",")) {
                add(events, Long.parseLong(id), at);
            }
        }
    }

    private static void add(Map<Long, List<Long>> events, long id, long at) {
        List<Long> times = events.computeIfAbsent(id, k -> java.util.Collections.synchronizedList(new ArrayList<>()));
        times.add(at);
    }

    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
