//! The build and run files of an export and its README.
//!
//! Contract: [`pom`] builds the job against a Flink version (`flink.version`, default
//! [`FLINK_VERSION`], Flink's artifacts `provided` as on a cluster); [`RUN_LOCAL`] compiles it
//! with `javac` against the jars of the `apache-flink` pip package (`$PYFLINK_LIB`, or the
//! `pyflink` the `python3` on the PATH imports) and runs it on a local MiniCluster with
//! config.yaml's TaskManagers and slots, REST on 127.0.0.1 (`$REST_PORT`, default 8081);
//! [`readme`] says how to run it and lists, from [`Notes`], what maps exactly, approximately and
//! what was not exported, plus what the mapping means for comparing Flink with the simulator.

use super::notes::Notes;
use super::FLINK_VERSION;
use crate::engine::spec::JobSpec;
use crate::scenario::Document;

pub const RUN_LOCAL: &str = r#"#!/usr/bin/env bash
# Compiles this job with javac against the jars of the apache-flink pip package and runs it
# on a local MiniCluster (TaskManagers and slots from config.yaml), REST on 127.0.0.1.
#
#   ./run-local.sh [DURATION]      e.g. ./run-local.sh 60s  (no duration: run until killed)
#
# Environment: PYFLINK_LIB (the pip package's pyflink/lib; found through python3 if unset),
# REST_PORT (default 8081), OUT (output folder, default ./output), JAVA_OPTS (default
# -Xmx1g), COMPILE_ONLY=1 (compile and stop), CLASSES (where classes go, default ./classes),
# SKIP_COMPILE=1 (run classes compiled before).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z "${PYFLINK_LIB:-}" ]]; then
    PYFLINK_LIB=$(${PYTHON:-python3} -c 'import os, pyflink; print(os.path.join(os.path.dirname(pyflink.__file__), "lib"))' 2>/dev/null || true)
fi
if [[ ! -d "${PYFLINK_LIB:-}" ]]; then
    echo "run-local.sh: no pyflink/lib found; pip install apache-flink==2.3.0 and set PYFLINK_LIB" >&2
    exit 1
fi
command -v javac >/dev/null || { echo "run-local.sh: javac not found (a JDK 17 is needed)" >&2; exit 1; }
OUT="${OUT:-$HERE/output}"
CLASSES="${CLASSES:-$HERE/classes}"
mkdir -p "$CLASSES" "$OUT"
if [[ "${SKIP_COMPILE:-0}" != 1 ]]; then
    javac -nowarn -encoding UTF-8 -d "$CLASSES" -cp "$PYFLINK_LIB/*" "$HERE"/src/main/java/playground/*.java
fi
if [[ "${COMPILE_ONLY:-0}" == 1 ]]; then
    exit 0
fi
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:--Xmx1g} -Dlog4j.configurationFile="$HERE/log4j2.properties" \
    -cp "$PYFLINK_LIB/*:$CLASSES" playground.ScenarioJob "$HERE" "$OUT" "${1:-${DURATION:-}}"
"#;

pub const LOG4J: &str = "\
# Flink's own log: warnings and errors on standard error.
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = console
appender.console.name = console
appender.console.type = Console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n
";

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace("--", "- -")
}

/// `pom.xml`: `mvn package -Dflink.version=…` builds a jar for `flink run`.
pub fn pom(doc: &Document) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- The Checkpoint Playground scenario "{name}" as a Flink job.
     mvn package [-Dflink.version=...]; flink run -c playground.ScenarioJob target/scenario-job-1.0.jar CONF_DIR OUT_DIR [DURATION] -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>playground</groupId>
  <artifactId>scenario-job</artifactId>
  <version>1.0</version>
  <packaging>jar</packaging>
  <properties>
    <flink.version>{FLINK_VERSION}</flink.version>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.apache.flink</groupId>
      <artifactId>flink-streaming-java</artifactId>
      <version>${{flink.version}}</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>org.apache.flink</groupId>
      <artifactId>flink-clients</artifactId>
      <version>${{flink.version}}</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>org.apache.flink</groupId>
      <artifactId>flink-connector-datagen</artifactId>
      <version>${{flink.version}}</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>org.apache.flink</groupId>
      <artifactId>flink-runtime-web</artifactId>
      <version>${{flink.version}}</version>
      <scope>provided</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-jar-plugin</artifactId>
        <version>3.4.2</version>
        <configuration>
          <archive>
            <manifest>
              <mainClass>playground.ScenarioJob</mainClass>
            </manifest>
          </archive>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"#,
        name = xml(&doc.name)
    )
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "- (none)\n".into();
    }
    items.iter().map(|i| format!("- {i}\n")).collect()
}

/// The export's README.
pub fn readme(doc: &Document, spec: &JobSpec, notes: &Notes) -> String {
    let (tms, slots) = super::config_map::slots(spec);
    let mut s = format!(
        "# {} — as an Apache Flink {FLINK_VERSION} job\n\n",
        doc.name
    );
    s += "Exported by `checkpoint-playground export --flink` from `scenario.json` (the playground \
          scenario, which `checkpoint-playground run scenario.json` replays in the simulator).\n\n";
    s += "## Run it\n\n```sh\npip install apache-flink==2.3.0          # into a virtual environment; brings the Flink jars\n";
    s += &format!(
        "PYFLINK_LIB=<venv>/lib/python3.*/site-packages/pyflink/lib ./run-local.sh {}\n```\n\n",
        doc.duration
    );
    s += &format!(
        "`run-local.sh` compiles the job with `javac` against those jars (JDK 17) and runs it on a \
         local MiniCluster in one JVM: {tms} TaskManager with {slots} slots, REST and web UI on \
         <http://127.0.0.1:8081/> (`REST_PORT` to change). Scenario time starts when the first \
         source subtask opens (deploying takes ~10–15 s, which is not scenario time); with a \
         duration the job is cancelled after it. Sinks write to `output/<sink>/committed/*.txt`, one \
         `lineage key value` line per visible record (`staging/` holds two-phase-commit \
         transactions not yet, or never, committed). On a cluster: `mvn package` and \
         `flink run -c playground.ScenarioJob target/scenario-job-1.0.jar . output 60s`.\n\n"
    );
    s += "## What maps exactly\n\n";
    s += &list(&notes.exact);
    s += "\n## What maps approximately\n\n";
    s += &list(&notes.approximate);
    s += "\n## What could not be exported\n\n";
    s += &list(&notes.not_exported);
    s += "\n## Comparing this run with the simulator\n\n";
    s += "- **Chaining.** Flink chains operators by default (forward edge, equal parallelism, \
          one input, same slot-sharing group): a chained pair is one task, its records pass \
          by method call, with no buffers and no barrier alignment between them. The \
          simulator does not chain yet: every edge is a network channel. The edges Flink \
          chains here are listed above. If the scenario gains chaining overrides they map to \
          `disableChaining()` / `startNewChain()`.\n";
    s += "- **Local channels.** With one TaskManager every channel is a `LocalInputChannel` \
          (no credit, no receiver-side buffers): less in-flight data to align or persist than \
          the simulator's remote channels hold.\n";
    s += "- **Per-record cost** is spent by parking the task thread (`LockSupport.parkNanos`), \
          not by spinning: parking holds the service time without taking one of a small \
          machine's cores from the sources, network threads and other tasks — the simulator's \
          cost is virtual time that uses no CPU either. Spinning on 2 cores would make the CPU, \
          not the configured cost, the bottleneck.\n";
    s += "- **Real costs the simulator models with constants** (serialization, the network \
          stack, checkpoint storage writes, RPCs) are whatever this machine takes; the \
          simulator's `playground.*` costs are not applied.\n";
    s += "- **Failures** fire once per JVM: a MiniCluster restarts the tasks in the same JVM, so \
          the restarted subtask does not fail again.\n";
    s
}
