//! Channel-state persistence: the writers that store captured in-flight buffers, and the
//! checkpoint storage's cost model.
//!
//! As in Flink's `ChannelStateWriteRequestExecutorFactory`, subtasks share a writer in
//! groups of up to `execution.checkpointing.unaligned.max-subtasks-per-channel-state-file`
//! (in deployment order); a writer handles its requests one at a time and writes one file
//! per checkpoint. Writing takes `bytes / playground.storage.throughput` per writer (writers
//! run in parallel); a file is created once its content passes
//! `state.storage.fs.memory-threshold` (below that it is inlined into the checkpoint
//! metadata, as Flink does), and file creations queue one after another at the storage's
//! metadata service, `playground.storage.file-cost` each — so many small files make
//! checkpoints slower, and sharing files makes them faster.

use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WriteRequest {
    pub task: usize,
    pub checkpoint: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FileStat {
    pub bytes: u64,
    /// Passed the memory threshold: a real file was created.
    pub is_file: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ChannelStateWriter {
    pub id: usize,
    pub tasks: Vec<usize>,
    pub in_progress: Option<WriteRequest>,
    pub queue: VecDeque<WriteRequest>,
    /// Per checkpoint: what this writer's file holds.
    pub files: BTreeMap<u64, FileStat>,
}

impl ChannelStateWriter {
    pub fn new(id: usize, tasks: Vec<usize>) -> Self {
        ChannelStateWriter {
            id,
            tasks,
            in_progress: None,
            queue: VecDeque::new(),
            files: BTreeMap::new(),
        }
    }
}

/// Micros to write `bytes` at `throughput` bytes per second.
pub fn write_time(bytes: u64, throughput: u64) -> u64 {
    (bytes as u128 * 1_000_000 / throughput.max(1) as u128) as u64
}
