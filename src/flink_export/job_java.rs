//! The generated `ScenarioJob.java`: the scenario's DAG on the fixed runtime `Playground.java`.
//!
//! Contract: [`generate`] writes one Java class whose `main` builds the scenario's job with
//! Flink's DataStream API, in topological order: a FLIP-27 `DataGeneratorSource` with a
//! `RateLimiterStrategy` per subtask for each source (a legacy `SourceFunction` where the
//! scenario says `legacy`), `map`, `flatMap` (fan-out), `keyBy(..).process(..)` with a keyed
//! `ValueState` for a keyed aggregate, and a Sink V2 per sink (with a committer for two-phase
//! commit). Each edge becomes its partitioner (`forward()`, `rebalance()`, `rescale()`,
//! `keyBy()`, `broadcast()`), several inputs a `union`, each operator's parallelism
//! `setParallelism`, its id `name`/`uid`. Timed events become the runtime's schedules
//! (cost and rate steps, failures) and the driver's triggered checkpoints. Chaining is left
//! to Flink's default (`StreamingJobGraphGenerator.isChainable`), as the user's job would run;
//! the forward edges Flink chains are listed as approximate. Every choice is noted in
//! [`Notes`].

use super::notes::Notes;
use crate::engine::spec::{JobSpec, OperatorKind, Partitioner, SinkDelivery};
use crate::engine::time::parse_duration;
use crate::scenario::{ActionDoc, Document};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Serialized bytes of a record besides its payload (PojoSerializer: null flags, two longs,
/// the lineage string, the payload's length): subtracted so that a record's size in Flink's
/// buffers is about the scenario's `record_size`.
pub const RECORD_OVERHEAD: u32 = 44;

/// A Java string literal.
pub fn java_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

fn java_double(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "0.0".into()
    }
}

/// `new Schedule(initial, new long[]{..}, new double[]{..})` or `Schedule.constant(v)`.
fn schedule(initial: f64, steps: &[(u64, f64)]) -> String {
    if steps.is_empty() {
        return format!("Schedule.constant({})", java_double(initial));
    }
    let at: Vec<String> = steps.iter().map(|(t, _)| format!("{t}L")).collect();
    let v: Vec<String> = steps.iter().map(|(_, v)| java_double(*v)).collect();
    format!(
        "new Schedule({}, new long[]{{{}}}, new double[]{{{}}})",
        java_double(initial),
        at.join(", "),
        v.join(", ")
    )
}

/// Operators in an order where every edge goes forward (Kahn; ties in document order).
fn topological(spec: &JobSpec) -> Vec<usize> {
    let index: BTreeMap<&str, usize> = spec
        .operators
        .iter()
        .enumerate()
        .map(|(i, o)| (o.id.as_str(), i))
        .collect();
    let mut indegree = vec![0usize; spec.operators.len()];
    for e in &spec.edges {
        if let Some(&t) = index.get(e.to.as_str()) {
            indegree[t] += 1;
        }
    }
    let mut order = Vec::new();
    let mut done = vec![false; spec.operators.len()];
    while order.len() < spec.operators.len() {
        let Some(next) = (0..spec.operators.len()).find(|&i| !done[i] && indegree[i] == 0) else {
            break; // a cycle: validation refuses it before export
        };
        done[next] = true;
        order.push(next);
        for e in spec
            .edges
            .iter()
            .filter(|e| e.from == spec.operators[next].id)
        {
            if let Some(&t) = index.get(e.to.as_str()) {
                indegree[t] = indegree[t].saturating_sub(1);
            }
        }
    }
    order
}

fn partitioned(var: &str, p: Partitioner) -> String {
    match p {
        Partitioner::Forward => format!("{var}.forward()"),
        Partitioner::Rebalance => format!("{var}.rebalance()"),
        Partitioner::Rescale => format!("{var}.rescale()"),
        Partitioner::Hash => format!("{var}.keyBy(new ByKey())"),
        Partitioner::Broadcast => format!("{var}.broadcast()"),
    }
}

fn union(mut streams: Vec<String>) -> String {
    let first = streams.remove(0);
    if streams.is_empty() {
        first
    } else {
        format!("{first}.union({})", streams.join(", "))
    }
}

/// The Java source of `ScenarioJob`; fills `notes`.
pub fn generate(doc: &Document, spec: &JobSpec, notes: &mut Notes) -> String {
    let var: BTreeMap<&str, String> = spec
        .operators
        .iter()
        .enumerate()
        .map(|(i, o)| (o.id.as_str(), format!("s{i}")))
        .collect();
    let doc_index: BTreeMap<&str, usize> = doc
        .operators
        .iter()
        .enumerate()
        .map(|(i, o)| (o.id.as_str(), i))
        .collect();

    // Timed events per operator.
    let mut cost_steps: BTreeMap<&str, Vec<(u64, f64)>> = BTreeMap::new();
    let mut rate_steps: BTreeMap<&str, Vec<(u64, f64)>> = BTreeMap::new();
    let mut failures: BTreeMap<&str, Vec<(u32, u64)>> = BTreeMap::new();
    let mut triggers: Vec<u64> = Vec::new();
    for (i, e) in doc.events.iter().enumerate() {
        let at = parse_duration(&e.at).unwrap_or(0);
        let path = format!("events[{i}]");
        match &e.action {
            ActionDoc::SetCost { operator, cost } => {
                let c = parse_duration(cost).unwrap_or(0);
                if let Some(id) = var.keys().find(|k| **k == operator.as_str()) {
                    cost_steps.entry(id).or_default().push((at, c as f64));
                }
                notes.exact(format!(
                    "{path}.set_cost: {operator} costs {cost} per record from {} (scenario time)",
                    e.at
                ));
            }
            ActionDoc::SetRate { operator, rate } => {
                if let Some(id) = var.keys().find(|k| **k == operator.as_str()) {
                    rate_steps.entry(id).or_default().push((at, *rate));
                }
                notes.exact(format!(
                    "{path}.set_rate: {operator} emits {rate} records/s per subtask from {}",
                    e.at
                ));
            }
            ActionDoc::Fail { operator, subtask } => {
                if let Some(id) = var.keys().find(|k| **k == operator.as_str()) {
                    failures.entry(id).or_default().push((*subtask, at));
                }
                notes.approximate(format!(
                    "{path}.fail: {operator}#{subtask} throws at its first record at or after {} — once (not again after the restart); on an idle subtask it waits for the next record",
                    e.at
                ));
            }
            ActionDoc::TriggerCheckpoint => {
                triggers.push(at);
                notes.exact(format!(
                    "{path}.trigger_checkpoint: POST /jobs/:id/checkpoints at {}",
                    e.at
                ));
            }
            ActionDoc::Savepoint => notes.not_exported(format!(
                "{path}.savepoint: `flink savepoint <job-id>` (POST /jobs/:id/savepoints) at {} — run it by hand",
                e.at
            )),
            ActionDoc::StopWithSavepoint { drain } => notes.not_exported(format!(
                "{path}.stop_with_savepoint: `flink stop{} <job-id>` (POST /jobs/:id/stop) at {} — run it by hand",
                if *drain { " --drain" } else { "" },
                e.at
            )),
            ActionDoc::SetConfig { .. } => {} // listed by config_map
            ActionDoc::SetPartitioner { from, to, partitioner } => notes.not_exported(format!(
                "{path}.set_partitioner: {from} -> {to} becomes {} at {} — a changed job is a resubmission from a checkpoint, not part of one run",
                partitioner.name(),
                e.at
            )),
            ActionDoc::Resubmit(r) => notes.not_exported(format!(
                "{path}.resubmit: `flink cancel <job-id>`, then `flink run -s <{}> …` with the changed job at {} — run it by hand",
                r.from.text(),
                e.at
            )),
        }
    }

    let mut body = String::new();
    for &i in &topological(spec) {
        let o = &spec.operators[i];
        let v = &var[o.id.as_str()];
        let di = doc_index.get(o.id.as_str()).copied().unwrap_or(i);
        let path = format!("operators[{di}]");
        let name = java_str(&o.id);
        let steps = cost_steps.get(o.id.as_str()).cloned().unwrap_or_default();
        let fails: Vec<String> = failures
            .get(o.id.as_str())
            .map(|fs| {
                fs.iter()
                    .map(|(s, at)| format!(", new Failure({name}, {s}, {at}L)"))
                    .collect()
            })
            .unwrap_or_default();
        let behaviour = format!(
            "new Behaviour({name}, {}{})",
            schedule(o.cost as f64, &steps),
            fails.concat()
        );
        let inputs: Vec<_> = spec.edges.iter().filter(|e| e.to == o.id).collect();
        let bcast = inputs
            .iter()
            .any(|e| e.partitioner == Partitioner::Broadcast);
        let input = || {
            union(
                inputs
                    .iter()
                    .map(|e| partitioned(&var[e.from.as_str()], e.partitioner))
                    .collect(),
            )
        };
        let mut tail = format!(
            ".setParallelism({}).name({name}).uid({name})",
            o.parallelism
        );
        // The chaining overrides and slot-sharing group (SingleOutputStreamOperator's
        // disableChaining / startNewChain / slotSharingGroup), as the physical plan reads them.
        match o.chaining.strategy {
            crate::engine::spec::ChainingStrategy::Always => {}
            crate::engine::spec::ChainingStrategy::Head => tail += ".startNewChain()",
            crate::engine::spec::ChainingStrategy::Never => tail += ".disableChaining()",
        }
        if let Some(group) = &o.chaining.slot_sharing_group {
            tail += &format!(".slotSharingGroup({})", java_str(group));
        }
        if o.cost > 0 {
            notes.approximate(format!(
                "{path}.cost: {} per record ({}), spent by parking the task thread (LockSupport.parkNanos; the mean service time is held, single records vary by the timer slack, ~50 us)",
                crate::scenario::convert::duration_text(o.cost),
                o.id
            ));
        }
        match &o.kind {
            OperatorKind::Source(s) => {
                let payload = s.record_size.saturating_sub(RECORD_OVERHEAD);
                let shape = format!(
                    "new RecordShape({name}, {}, {}, {payload}, {}L)",
                    s.keys,
                    java_double(s.skew),
                    spec.seed as i64
                );
                let rates = rate_steps.get(o.id.as_str()).cloned().unwrap_or_default();
                let rate = schedule(s.rate, &rates);
                if s.api == crate::engine::spec::SourceApi::Legacy {
                    let records = s
                        .records
                        .map(|r| format!("{r}L"))
                        .unwrap_or("Long.MAX_VALUE".into());
                    let _ = writeln!(
                        body,
                        "        DataStream<Rec> {v} = env.addSource(new LegacySource({shape}, {behaviour}, {rate}, {records}), {name}, REC)\n                {tail};"
                    );
                    notes.exact(format!(
                        "{path} ({}): a legacy SourceFunction (RichParallelSourceFunction emitting under the checkpoint lock), parallelism {}, {} records/s per subtask",
                        o.id, o.parallelism, s.rate
                    ));
                } else {
                    let count = s
                        .records
                        .map(|r| format!("{}L", r.saturating_mul(o.parallelism as u64)))
                        .unwrap_or("Long.MAX_VALUE".into());
                    let _ = writeln!(
                        body,
                        "        DataStream<Rec> {v} = env.fromSource(new DataGeneratorSource<>(\n                new Generator({shape}, {behaviour}),\n                {count}, new ScheduledRate({rate}), REC),\n                WatermarkStrategy.noWatermarks(), {name})\n                {tail};"
                    );
                    notes.exact(format!(
                        "{path} ({}): a FLIP-27 DataGeneratorSource, parallelism {}, {} records/s per subtask (a RateLimiterStrategy per subtask){}",
                        o.id,
                        o.parallelism,
                        s.rate,
                        match s.records {
                            Some(r) => format!(", {r} records per subtask"),
                            None => ", unbounded".into(),
                        }
                    ));
                }
                notes.approximate(format!(
                    "{path}.record_size: {} bytes as a {payload}-byte payload plus the record's fields (~{RECORD_OVERHEAD} bytes serialized)",
                    s.record_size
                ));
                notes.approximate(format!(
                    "{path}.keys: {} keys{} from the seed {} — the same distribution as the simulator's, not the same keys",
                    s.keys,
                    if s.skew > 0.0 { format!(" with skew {}", s.skew) } else { String::new() },
                    spec.seed
                ));
                if let Some(r) = s.retention {
                    notes.not_exported(format!(
                        "{path}.retention: {} — a generator source keeps every record; a rewind never finds expired ones",
                        crate::scenario::convert::duration_text(r)
                    ));
                }
            }
            OperatorKind::Map => {
                let _ = writeln!(
                    body,
                    "        DataStream<Rec> {v} = {}\n                .map(new CostMap({behaviour}, {bcast})).returns(REC)\n                {tail};",
                    input()
                );
                notes.exact(format!(
                    "{path} ({}): map, parallelism {}",
                    o.id, o.parallelism
                ));
            }
            OperatorKind::FlatMap { fan_out } => {
                let _ = writeln!(
                    body,
                    "        DataStream<Rec> {v} = {}\n                .flatMap(new FanOut({behaviour}, {fan_out}, {bcast})).returns(REC)\n                {tail};",
                    input()
                );
                notes.exact(format!(
                    "{path} ({}): flatMap emitting {fan_out} records per input, parallelism {}",
                    o.id, o.parallelism
                ));
            }
            OperatorKind::KeyedAggregate => {
                let raw: Vec<String> = inputs
                    .iter()
                    .map(|e| var[e.from.as_str()].clone())
                    .collect();
                // Every input is a hash edge (`JobSpec::validate`: keyed state needs a keyed
                // input), exported as the union's `keyBy`.
                let _ = writeln!(
                    body,
                    "        DataStream<Rec> {v} = {}.keyBy(new ByKey())\n                .process(new KeyedCount({behaviour}, {bcast})).returns(REC)\n                {tail};",
                    union(raw)
                );
                notes.exact(format!(
                    "{path} ({}): keyBy + KeyedProcessFunction keeping a count per key in keyed ValueState (HashMapStateBackend), parallelism {}",
                    o.id, o.parallelism
                ));
            }
            OperatorKind::Sink { delivery } => {
                let class = match delivery {
                    SinkDelivery::TwoPhaseCommit => "TwoPhaseCommitSink",
                    SinkDelivery::AtLeastOnce | SinkDelivery::Idempotent => "DirectSink",
                };
                let _ = writeln!(
                    body,
                    "        {}\n                .sinkTo(new {class}({behaviour}, out, {bcast}))\n                {tail};",
                    input()
                );
                notes.exact(format!(
                    "{path} ({}): {}, parallelism {}",
                    o.id,
                    match delivery {
                        SinkDelivery::TwoPhaseCommit => "a Sink V2 with a committer (SupportsCommitter): transactions pre-committed at the barrier, committed when the checkpoint completes",
                        SinkDelivery::AtLeastOnce => "a Sink V2 writer writing each record at once (at-least-once: replays after a failure are duplicates)",
                        SinkDelivery::Idempotent => "a Sink V2 writer writing each record at once to a store that upserts by record identity (idempotent)",
                    },
                    o.parallelism
                ));
            }
        }
    }
    for e in &spec.edges {
        notes.exact(format!(
            "edge {} -> {}: {}",
            e.from,
            e.to,
            match e.partitioner {
                Partitioner::Forward => "forward()",
                Partitioner::Rebalance => "rebalance()",
                Partitioner::Rescale => "rescale()",
                Partitioner::Hash => "keyBy(key) (hash)",
                Partitioner::Broadcast => "broadcast()",
            }
        ));
        let single_input = spec.edges.iter().filter(|x| x.to == e.to).count() == 1;
        if e.partitioner == Partitioner::Forward && single_input {
            notes.approximate(format!(
                "edge {} -> {}: Flink chains it (forward, equal parallelism, one input: StreamingJobGraphGenerator.isChainable), a method call in one task; the simulator has a network channel there (no chaining yet)",
                e.from, e.to
            ));
        }
    }
    let trigger_list: Vec<String> = triggers
        .iter()
        .map(|t| format!("new Trigger({t}L)"))
        .collect();

    let mut java = String::new();
    java += "package playground;\n\n";
    java += "// Generated by `checkpoint-playground export --flink` from the scenario in scenario.json.\n";
    java += "// The runtime (sources, operators, sinks, clock, per-record cost) is Playground.java.\n\n";
    java += "import java.util.Arrays;\nimport java.util.List;\n";
    java += "import org.apache.flink.api.common.eventtime.WatermarkStrategy;\n";
    java += "import org.apache.flink.api.common.typeinfo.TypeInformation;\n";
    java += "import org.apache.flink.configuration.Configuration;\n";
    java += "import org.apache.flink.configuration.GlobalConfiguration;\n";
    java += "import org.apache.flink.connector.datagen.source.DataGeneratorSource;\n";
    java += "import org.apache.flink.core.execution.JobClient;\n";
    java += "import org.apache.flink.streaming.api.datastream.DataStream;\n";
    java += "import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;\n";
    java += "import playground.Playground;\nimport playground.Playground.*;\n\n";
    let _ = writeln!(
        java,
        "/** {} */",
        doc.name.replace("*/", "* /").replace(['\n', '\r'], " ")
    );
    java += "public final class ScenarioJob {\n";
    java += "    static final TypeInformation<Rec> REC = TypeInformation.of(Rec.class);\n\n";
    java +=
        "    /** Args: CONF_DIR (config.yaml) OUT_DIR [DURATION, e.g. 60s: stop after it]. */\n";
    java += "    public static void main(String[] args) throws Exception {\n";
    java += "        String conf = args.length > 0 ? args[0] : \".\";\n";
    java += "        String out = args.length > 1 ? args[1] : \"output\";\n";
    java += "        long duration = args.length > 2 && !args[2].isEmpty() ? Playground.micros(args[2]) : -1;\n";
    java += "        Configuration config = GlobalConfiguration.loadConfiguration(conf);\n";
    java += "        String port = System.getenv(\"REST_PORT\");\n";
    java += "        if (port != null && !port.isEmpty()) {\n            config.setString(\"rest.port\", port);\n        }\n";
    java += "        if (!config.toMap().containsKey(\"execution.checkpointing.dir\")) {\n";
    java += "            config.setString(\"execution.checkpointing.dir\",\n                    new java.io.File(out, \"checkpoints\").getAbsoluteFile().toURI().toString());\n        }\n";
    java += "        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);\n\n";
    java += &body;
    java += "\n";
    let _ = writeln!(
        java,
        "        JobClient client = env.executeAsync({});",
        java_str(&doc.name)
    );
    let _ = writeln!(
        java,
        "        List<Trigger> triggers = Arrays.asList({});",
        trigger_list.join(", ")
    );
    java += "        String rest = \"http://127.0.0.1:\" + config.toMap().getOrDefault(\"rest.port\", \"8081\");\n";
    java += "        System.out.println(\"playground: submitted job \" + client.getJobID() + \", REST \" + rest);\n";
    java += "        Playground.drive(client.getJobID().toString(), rest, triggers, duration);\n";
    java += "        if (duration >= 0) {\n            client.cancel().get();\n            System.exit(0);\n        }\n";
    java += "        client.getJobExecutionResult().get();\n";
    java += "    }\n}\n";
    java
}
