package playground;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.source.legacy.RichParallelSourceFunction;
import org.apache.flink.util.Collector;

/**
 * The fixed runtime of a job exported by Checkpoint Playground (issue 16): the record type, the
 * scenario clock, per-record cost, timed rate/cost changes and failures, the sources, operators
 * and sinks. {@code ScenarioJob} (generated per scenario) wires them into the scenario's DAG.
 *
 * <p>Per-record cost is spent by parking the task thread ({@link LockSupport#parkNanos}), not by
 * spinning: a parked thread holds its service time (what the playground calls the operator's cost)
 * without taking a core from the sources, the network threads and the other tasks, which on a
 * 2-core machine would otherwise make the CPU, not the configured cost, the bottleneck. The
 * playground's cost is virtual time that uses no CPU either. Parking overshoots by the kernel's
 * timer slack (~50-60 us); {@link Pace} carries the overshoot as a debt (at most 1 ms) that
 * shortens the next parks, so the mean service time stays the configured cost.
 */
public final class Playground {
    private Playground() {}

    // ------------------------------------------------------------------------------------------
    // Record
    // ------------------------------------------------------------------------------------------

    /**
     * One record (a Flink POJO). {@code lineage} identifies the source record it derives from
     * ({@code source/subtask/index}, plus {@code .child} per flat_map), which is what the
     * exactly-once check counts in the committed output; {@code payload} pads the record to the
     * scenario's record size.
     */
    public static final class Rec {
        public long key;
        public long value;
        public String lineage;
        public byte[] payload;

        public Rec() {}

        public Rec(long key, long value, String lineage, byte[] payload) {
            this.key = key;
            this.value = value;
            this.lineage = lineage;
            this.payload = payload;
        }
    }

    /** keyBy(record.key): the scenario's `hash` partitioner. */
    public static final class ByKey implements KeySelector<Rec, Long> {
        @Override
        public Long getKey(Rec r) {
            return r.key;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Scenario clock and timed events
    // ------------------------------------------------------------------------------------------

    /**
     * Scenario time: 0 when the first source subtask of this JVM opens (deployment, ~10-15 s on
     * a MiniCluster, is not scenario time). Statics are shared by the tasks of one JVM: true on
     * a MiniCluster; on a cluster with several TaskManagers each JVM has its own clock.
     */
    public static final class Clock {
        private static final AtomicLong T0_NANOS = new AtomicLong(0);
        private static final AtomicLong T0_EPOCH_MS = new AtomicLong(0);

        public static void start() {
            if (T0_NANOS.compareAndSet(0, System.nanoTime() | 1)) {
                T0_EPOCH_MS.set(System.currentTimeMillis());
            }
        }

        public static boolean started() {
            return T0_NANOS.get() != 0;
        }

        public static long startEpochMillis() {
            return T0_EPOCH_MS.get();
        }

        public static long nowMicros() {
            long t0 = T0_NANOS.get();
            return t0 == 0 ? 0 : (System.nanoTime() - t0) / 1000;
        }
    }

    /** A value that changes at scenario times (a step function): cost or rate. */
    public static final class Schedule implements Serializable {
        private final double initial;
        private final long[] atMicros;
        private final double[] values;

        public Schedule(double initial, long[] atMicros, double[] values) {
            this.initial = initial;
            this.atMicros = atMicros;
            this.values = values;
        }

        public static Schedule constant(double v) {
            return new Schedule(v, new long[0], new double[0]);
        }

        public double at(long tMicros) {
            double v = initial;
            for (int i = 0; i < atMicros.length; i++) {
                if (tMicros >= atMicros[i]) {
                    v = values[i];
                }
            }
            return v;
        }
    }

    /**
     * A scenario failure of one subtask at a scenario time: thrown once per JVM (not again after
     * the restart, which restarts the same JVM's tasks on a MiniCluster).
     */
    public static final class Failure implements Serializable {
        private static final Set<String> FIRED = ConcurrentHashMap.newKeySet();
        private final String operator;
        private final int subtask;
        private final long atMicros;

        public Failure(String operator, int subtask, long atMicros) {
            this.operator = operator;
            this.subtask = subtask;
            this.atMicros = atMicros;
        }

        void check(String op, int index) {
            if (index == subtask && op.equals(operator) && Clock.nowMicros() >= atMicros
                    && FIRED.add(operator + "#" + subtask + "@" + atMicros)) {
                System.out.println("playground: failure " + operator + "#" + subtask + " at "
                        + System.currentTimeMillis() + " epoch-ms (scenario " + atMicros + " us)");
                throw new RuntimeException("Checkpoint Playground scenario failure of " + operator
                        + "#" + subtask + " at " + (atMicros / 1000) + " ms");
            }
        }
    }

    /** What one operator does per record: its cost and its failures. */
    public static final class Behaviour implements Serializable {
        final String operator;
        final Schedule costMicros;
        final Failure[] failures;

        public Behaviour(String operator, Schedule costMicros, Failure... failures) {
            this.operator = operator;
            this.costMicros = costMicros;
            this.failures = failures;
        }

        Pace pace() {
            return new Pace(costMicros);
        }

        void failIfDue(int subtask) {
            for (Failure f : failures) {
                f.check(operator, subtask);
            }
        }
    }

    /**
     * Spends a per-record cost by parking (see the class comment). Oversleep is a debt, capped
     * at 1 ms, that the next parks pay back; idle time between records is never banked.
     */
    public static final class Pace {
        private static final long MAX_DEBT_NANOS = 1_000_000L;
        private final Schedule costMicros;
        private long debt;

        Pace(Schedule costMicros) {
            this.costMicros = costMicros;
        }

        void spend() {
            long cost = (long) (costMicros.at(Clock.nowMicros()) * 1000.0);
            if (cost <= 0) {
                return;
            }
            long start = System.nanoTime();
            long target = cost - debt;
            if (target > 0) {
                long deadline = start + target;
                long wait = target;
                while (wait > 0) {
                    LockSupport.parkNanos(wait);
                    wait = deadline - System.nanoTime();
                }
            }
            long actual = System.nanoTime() - start;
            debt = Math.max(0, Math.min(MAX_DEBT_NANOS, debt + actual - cost));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Sources
    // ------------------------------------------------------------------------------------------

    /** The shape of a source's records: keys (uniform or skewed), record size, seed. */
    public static final class RecordShape implements Serializable {
        final String source;
        final int keys;
        final double skew;
        final int payloadBytes;
        final long seed;

        public RecordShape(String source, int keys, double skew, int payloadBytes, long seed) {
            this.source = source;
            this.keys = keys;
            this.skew = skew;
            this.payloadBytes = payloadBytes;
            this.seed = seed;
        }

        /**
         * The key of record {@code index}: uniform over {@code keys}, or skewed to low keys as the
         * playground does ({@code floor(keys * u^(1/(1-skew)))}, u uniform in [0, 1)), from a
         * SplitMix64 hash of (seed, source, index) — the same distribution as the playground's,
         * not the same keys.
         */
        long key(long index) {
            long z = seed * 0x9E3779B97F4A7C15L + source.hashCode() * 0xBF58476D1CE4E5B9L + index;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            double u = (z >>> 11) * 0x1.0p-53;
            if (skew > 0) {
                u = Math.pow(u, 1.0 / (1.0 - skew));
            }
            return Math.min(keys - 1, (long) Math.floor(keys * u));
        }

        Rec record(int subtask, long index) {
            return new Rec(key(index), 1, source + "/" + subtask + "/" + index,
                    new byte[payloadBytes]);
        }
    }

    /** The FLIP-27 generator function of a DataGeneratorSource. */
    public static final class Generator implements GeneratorFunction<Long, Rec> {
        private final RecordShape shape;
        private final Behaviour behaviour;
        private transient int subtask;
        private transient Pace pace;

        public Generator(RecordShape shape, Behaviour behaviour) {
            this.shape = shape;
            this.behaviour = behaviour;
        }

        @Override
        public void open(SourceReaderContext ctx) {
            subtask = ctx.getIndexOfSubtask();
            pace = behaviour.pace();
            Clock.start();
        }

        @Override
        public Rec map(Long index) {
            behaviour.failIfDue(subtask);
            pace.spend();
            return shape.record(subtask, index);
        }
    }

    /**
     * A rate limiter per source subtask whose rate follows the scenario's set_rate events
     * (records/s per subtask). Permits are handed out on a schedule ({@code next} advances by
     * 1/rate per record, never banking more than 10 ms of idle time); a wait completes a future
     * later instead of blocking, so the source's mailbox keeps taking checkpoint barriers.
     */
    public static final class ScheduledRate implements RateLimiterStrategy<NumberSequenceSplit> {
        private final Schedule perSubtask;

        public ScheduledRate(Schedule perSubtask) {
            this.perSubtask = perSubtask;
        }

        @Override
        public RateLimiter<NumberSequenceSplit> createRateLimiter(int parallelism) {
            return new RateLimiter<NumberSequenceSplit>() {
                private long next;

                @Override
                public CompletionStage<Void> acquire(int permits) {
                    Clock.start();
                    double rate = perSubtask.at(Clock.nowMicros());
                    long now = System.nanoTime();
                    if (rate <= 0) {
                        next = now;
                        return CompletableFuture.runAsync(() -> {},
                                CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS));
                    }
                    next = Math.max(next, now - 10_000_000L) + (long) (permits * 1e9 / rate);
                    long wait = next - now;
                    if (wait <= 0) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return CompletableFuture.runAsync(() -> {},
                            CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS));
                }
            };
        }
    }

    /**
     * A legacy {@code SourceFunction} (the scenario's {@code "legacy": true}): its own thread emits
     * under the checkpoint lock at the scheduled rate; its offset is operator state.
     */
    public static final class LegacySource extends RichParallelSourceFunction<Rec>
            implements CheckpointedFunction {
        private final RecordShape shape;
        private final Behaviour behaviour;
        private final Schedule perSubtask;
        private final long records;
        private volatile boolean running = true;
        private transient long offset;
        private transient ListState<Long> offsetState;

        public LegacySource(RecordShape shape, Behaviour behaviour, Schedule perSubtask,
                long records) {
            this.shape = shape;
            this.behaviour = behaviour;
            this.perSubtask = perSubtask;
            this.records = records;
        }

        @Override
        public void run(SourceContext<Rec> ctx) {
            int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            Clock.start();
            Pace pace = behaviour.pace();
            long next = System.nanoTime();
            while (running && offset < records) {
                double rate = perSubtask.at(Clock.nowMicros());
                long now = System.nanoTime();
                if (rate <= 0) {
                    LockSupport.parkNanos(10_000_000L);
                    next = System.nanoTime();
                    continue;
                }
                next = Math.max(next, now - 10_000_000L) + (long) (1e9 / rate);
                while (next - System.nanoTime() > 0) {
                    LockSupport.parkNanos(next - System.nanoTime());
                }
                behaviour.failIfDue(subtask);
                pace.spend();
                synchronized (ctx.getCheckpointLock()) {
                    // The same global index scheme as the generator: subtask + k * parallelism.
                    ctx.collect(shape.record(subtask, subtask + offset * parallelism));
                    offset++;
                }
            }
        }

        @Override
        public void cancel() {
            running = false;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            offsetState.update(Collections.singletonList(offset));
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) throws Exception {
            offsetState = ctx.getOperatorStateStore()
                    .getListState(new ListStateDescriptor<>("offset", Long.class));
            for (Long o : offsetState.get()) {
                offset = o;
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Operators
    // ------------------------------------------------------------------------------------------

    /** Appends the receiving subtask to the lineage behind a broadcast edge. */
    static String lineage(Rec r, boolean broadcastInput, int subtask) {
        return broadcastInput ? r.lineage + "~" + subtask : r.lineage;
    }

    /** The scenario's `map`: spends its cost, forwards the record. */
    public static final class CostMap extends RichMapFunction<Rec, Rec> {
        private final Behaviour behaviour;
        private final boolean broadcastInput;
        private transient Pace pace;
        private transient int subtask;

        public CostMap(Behaviour behaviour, boolean broadcastInput) {
            this.behaviour = behaviour;
            this.broadcastInput = broadcastInput;
        }

        @Override
        public void open(OpenContext ctx) {
            pace = behaviour.pace();
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        @Override
        public Rec map(Rec r) {
            behaviour.failIfDue(subtask);
            pace.spend();
            return new Rec(r.key, r.value, lineage(r, broadcastInput, subtask), r.payload);
        }
    }

    /** The scenario's `flat_map`: spends its cost once per input, emits fan_out children. */
    public static final class FanOut extends RichFlatMapFunction<Rec, Rec> {
        private final Behaviour behaviour;
        private final int fanOut;
        private final boolean broadcastInput;
        private transient Pace pace;
        private transient int subtask;

        public FanOut(Behaviour behaviour, int fanOut, boolean broadcastInput) {
            this.behaviour = behaviour;
            this.fanOut = fanOut;
            this.broadcastInput = broadcastInput;
        }

        @Override
        public void open(OpenContext ctx) {
            pace = behaviour.pace();
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        @Override
        public void flatMap(Rec r, Collector<Rec> out) {
            behaviour.failIfDue(subtask);
            pace.spend();
            String base = lineage(r, broadcastInput, subtask);
            for (int i = 0; i < fanOut; i++) {
                out.collect(new Rec(r.key, r.value, base + "." + i, r.payload));
            }
        }
    }

    /** The scenario's `keyed_aggregate`: a running count per key in keyed ValueState. */
    public static final class KeyedCount extends KeyedProcessFunction<Long, Rec, Rec> {
        private final Behaviour behaviour;
        private final boolean broadcastInput;
        private transient Pace pace;
        private transient int subtask;
        private transient ValueState<Long> count;

        public KeyedCount(Behaviour behaviour, boolean broadcastInput) {
            this.behaviour = behaviour;
            this.broadcastInput = broadcastInput;
        }

        @Override
        public void open(OpenContext ctx) {
            pace = behaviour.pace();
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
        }

        @Override
        public void processElement(Rec r, Context ctx, Collector<Rec> out) throws Exception {
            behaviour.failIfDue(subtask);
            pace.spend();
            Long c = count.value();
            long next = (c == null ? 0 : c) + 1;
            count.update(next);
            out.collect(new Rec(r.key, next, lineage(r, broadcastInput, subtask), r.payload));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Sinks (Sink V2). Output: <out>/<sink>/committed/*.txt, one "lineage key value" line a record.
    // ------------------------------------------------------------------------------------------

    static String line(Rec r) {
        return r.lineage + " " + r.key + " " + r.value + "\n";
    }

    static Path dir(String out, String sink, String kind) throws IOException {
        Path p = Paths.get(out, sink, kind);
        Files.createDirectories(p);
        return p;
    }

    /**
     * Two-phase commit: the writer collects a transaction per checkpoint, pre-commits it at the
     * barrier ({@code prepareCommit}: written to {@code staging/}), and the committer makes it
     * visible once the checkpoint completes (an atomic rename into {@code committed/}; a
     * re-commit after recovery finds it there and is a no-op). A transaction that no completed
     * checkpoint covers stays in {@code staging/}: aborted, never visible.
     */
    public static final class TwoPhaseCommitSink implements Sink<Rec>, SupportsCommitter<String> {
        private final Behaviour behaviour;
        private final String out;
        private final boolean broadcastInput;

        public TwoPhaseCommitSink(Behaviour behaviour, String out, boolean broadcastInput) {
            this.behaviour = behaviour;
            this.out = out;
            this.broadcastInput = broadcastInput;
        }

        @Override
        public SinkWriter<Rec> createWriter(WriterInitContext ctx) throws IOException {
            int subtask = ctx.getTaskInfo().getIndexOfThisSubtask();
            Path staging = dir(out, behaviour.operator, "staging");
            return new CommittingSinkWriter<Rec, String>() {
                private final StringBuilder txn = new StringBuilder();
                private final Pace pace = behaviour.pace();

                @Override
                public void write(Rec r, Context c) {
                    behaviour.failIfDue(subtask);
                    pace.spend();
                    txn.append(line(new Rec(r.key, r.value, lineage(r, broadcastInput, subtask),
                            null)));
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public Collection<String> prepareCommit() throws IOException {
                    if (txn.length() == 0) {
                        return Collections.emptyList();
                    }
                    Path f = staging.resolve(behaviour.operator + "-" + subtask + "-"
                            + UUID.randomUUID() + ".txt");
                    Files.writeString(f, txn, StandardCharsets.UTF_8);
                    txn.setLength(0);
                    return Collections.singletonList(f.toString());
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public Committer<String> createCommitter(CommitterInitContext ctx) throws IOException {
            Path committed = dir(out, behaviour.operator, "committed");
            return new Committer<String>() {
                @Override
                public void commit(Collection<CommitRequest<String>> requests) throws IOException {
                    for (CommitRequest<String> req : requests) {
                        Path staged = Paths.get(req.getCommittable());
                        Path target = committed.resolve(staged.getFileName());
                        try {
                            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE);
                        } catch (NoSuchFileException | FileAlreadyExistsException e) {
                            req.signalAlreadyCommitted();
                        }
                    }
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public SimpleVersionedSerializer<String> getCommittableSerializer() {
            return new SimpleVersionedSerializer<String>() {
                @Override
                public int getVersion() {
                    return 1;
                }

                @Override
                public byte[] serialize(String s) {
                    return s.getBytes(StandardCharsets.UTF_8);
                }

                @Override
                public String deserialize(int version, byte[] b) {
                    return new String(b, StandardCharsets.UTF_8);
                }
            };
        }
    }

    /**
     * At-least-once (and idempotent) sinks: every record is visible at once (appended to a file of
     * this writer, flushed at each checkpoint). After a failure the records since the restored
     * checkpoint are written again: duplicates. An idempotent sink's store upserts by record
     * identity (lineage), so its readers see each record once: the checker counts distinct
     * lineages for it.
     */
    public static final class DirectSink implements Sink<Rec> {
        private final Behaviour behaviour;
        private final String out;
        private final boolean broadcastInput;

        public DirectSink(Behaviour behaviour, String out, boolean broadcastInput) {
            this.behaviour = behaviour;
            this.out = out;
            this.broadcastInput = broadcastInput;
        }

        @Override
        public SinkWriter<Rec> createWriter(WriterInitContext ctx) throws IOException {
            int subtask = ctx.getTaskInfo().getIndexOfThisSubtask();
            Path f = dir(out, behaviour.operator, "committed")
                    .resolve(behaviour.operator + "-" + subtask + "-" + UUID.randomUUID() + ".txt");
            BufferedWriter w = Files.newBufferedWriter(f, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            return new SinkWriter<Rec>() {
                private final Pace pace = behaviour.pace();

                @Override
                public void write(Rec r, Context c) throws IOException {
                    behaviour.failIfDue(subtask);
                    pace.spend();
                    w.write(line(new Rec(r.key, r.value, lineage(r, broadcastInput, subtask),
                            null)));
                }

                @Override
                public void flush(boolean endOfInput) throws IOException {
                    w.flush();
                }

                @Override
                public void close() throws IOException {
                    w.close();
                }
            };
        }
    }

    // ------------------------------------------------------------------------------------------
    // Driver helpers: triggered checkpoints over REST, the run's time limit
    // ------------------------------------------------------------------------------------------

    /** A timed action of the driver (main thread): a triggered checkpoint. */
    public static final class Trigger {
        final long atMicros;

        public Trigger(long atMicros) {
            this.atMicros = atMicros;
        }
    }

    /** Parses "2s", "500ms", "250us", "1min" (the playground's duration syntax) to micros. */
    public static long micros(String text) {
        String t = text.trim();
        String[][] units = {{"min", "60000000"}, {"ms", "1000"}, {"us", "1"}, {"s", "1000000"}};
        for (String[] u : units) {
            if (t.endsWith(u[0])) {
                return (long) (Double.parseDouble(t.substring(0, t.length() - u[0].length()))
                        * Long.parseLong(u[1]));
            }
        }
        return (long) (Double.parseDouble(t) * 1000);
    }

    /**
     * Waits for the scenario clock, then fires the triggered checkpoints at their scenario times
     * ({@code POST /jobs/:id/checkpoints} on the local REST endpoint) and returns once
     * {@code durationMicros} of scenario time passed (for a negative duration: once every
     * trigger fired).
     */
    public static void drive(String jobId, String restBase, List<Trigger> triggers,
            long durationMicros) throws Exception {
        while (!Clock.started()) {
            Thread.sleep(20);
        }
        System.out.println("playground: scenario clock started at " + Clock.startEpochMillis()
                + " epoch-ms, job " + jobId);
        HttpClient http = HttpClient.newHttpClient();
        List<Trigger> pending = new ArrayList<>(triggers);
        // Without a duration, the driver ends after the last triggered checkpoint.
        while (durationMicros >= 0 ? Clock.nowMicros() < durationMicros : !pending.isEmpty()) {
            long now = Clock.nowMicros();
            for (Trigger t : new ArrayList<>(pending)) {
                if (now >= t.atMicros) {
                    pending.remove(t);
                    HttpRequest req = HttpRequest.newBuilder(
                            URI.create(restBase + "/jobs/" + jobId + "/checkpoints"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
                    HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
                    System.out.println("playground: triggered checkpoint at " + (now / 1000)
                            + " ms: HTTP " + resp.statusCode() + " " + resp.body());
                }
            }
            Thread.sleep(20);
        }
        System.out.println("playground: scenario duration reached");
    }
}
