//! Channel-state persistence: the writers that store captured in-flight buffers, and the
//! checkpoint storage's cost model.
//!
//! Writers per TaskManager, as Flink 2.x has them: each TaskManager holds one
//! `ChannelStateWriteRequestExecutorFactory` per job (`TaskExecutor`'s job-scoped
//! resources); a subtask deployed there asks it for an executor
//! (`getOrCreateExecutor` → `registerSubtask`), and an executor that has
//! `execution.checkpointing.unaligned.max-subtasks-per-channel-state-file` subtasks (default
//! 5) is full, so the factory starts a new one for the next subtask
//! (`ChannelStateWriteRequestExecutorImpl.registerSubtask`'s `onRegistered` callback). The
//! playground registers subtasks in deployment order (task id order) per TaskManager
//! ([`assign_writers`]). An executor handles its requests one at a time and writes one
//! file per checkpoint (`ChannelStateCheckpointWriter`), and that file completes — so each
//! of its sharers' channel-state handles, and with them their acknowledgements — only when
//! every registered sharer has written all its input and output
//! (`ChannelStateCheckpointWriter.tryFinishResult`; a finished subtask is released,
//! `releaseSubtask`): see [`file_complete`]. Sharing thus trades files for coupling: fewer
//! files, but a subtask's acknowledgement waits for its slowest sharer.
//!
//! A sharer whose barrier came forced aligned on a pointwise edge of an unaligned (or
//! timeout-capable) checkpoint holds the file until its sync phase: only then does
//! `SubtaskCheckpointCoordinatorImpl.checkpointState` revert the forced alignment and start
//! its channel-state writer (`initInputsCheckpoint` → `ChannelStateWriterImpl.start`), so it
//! registers then, and its barrier overtakes its output like any unaligned one. A finished
//! sharer is released and its file-mates are looked at again (`releaseSubtask` →
//! `tryFinishResult`). Simplified: a sharer of a checkpoint aligned from the start holds
//! nothing back (in Flink no subtask starts a channel-state file for it), and one that has
//! not started the checkpoint holds the file as an unregistered subtask does.
//! With `playground.channel-state.writers-per-taskmanager: false` (version-1 scenarios)
//! the writers group the job's subtasks in deployment order regardless of TaskManagers.
//!
//! Writing takes `bytes / playground.storage.throughput` per writer (writers
//! run in parallel); a file is created once its content passes
//! `state.storage.fs.memory-threshold` (below that it is inlined into the checkpoint
//! metadata, as Flink does), and file creations queue one after another at the storage's
//! metadata service, `playground.storage.file-cost` each — so many small files make
//! checkpoints slower, and sharing files makes them faster. At restore,
//! [`ChannelStateReader`] reads a task's recovered input back into bounded recovered-channel
//! buffers.

use super::network::Buffer;
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

/// The writers of a deployment: `task_managers[t]` is task `t`'s TaskManager. Per
/// TaskManager (`per_task_manager`), tasks register in task order with their
/// TaskManager's current executor until it holds `per_file`; otherwise the whole job's
/// tasks are grouped in task order. Writers are numbered in order of their first task.
pub fn assign_writers(
    task_managers: &[u32],
    per_file: usize,
    per_task_manager: bool,
) -> Vec<ChannelStateWriter> {
    let per_file = per_file.max(1);
    let mut writers: Vec<ChannelStateWriter> = Vec::new();
    // Per TaskManager: the index of its executor still taking subtasks.
    let mut current: BTreeMap<u32, usize> = BTreeMap::new();
    for (t, &tm) in task_managers.iter().enumerate() {
        let tm = if per_task_manager { tm } else { 0 };
        let open = current
            .get(&tm)
            .copied()
            .filter(|&w| writers[w].tasks.len() < per_file);
        let w = match open {
            Some(w) => w,
            None => {
                writers.push(ChannelStateWriter::new(writers.len(), Vec::new()));
                current.insert(tm, writers.len() - 1);
                writers.len() - 1
            }
        };
        writers[w].tasks.push(t);
    }
    writers
}

/// Where one registered sharer of a channel-state file stands for a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharerState {
    /// Finished or cancelled: released from the writer (`releaseSubtask`).
    Released,
    /// Has not started the checkpoint: its result is not registered yet.
    NotStarted,
    /// Its checkpoint needs no channel state (aligned barrier).
    NoChannelState,
    /// Still capturing or writing input or output.
    Writing,
    /// All its input and output is written (`completeInput` and `completeOutput`).
    Written,
}

/// `ChannelStateCheckpointWriter.tryFinishResult`: the file completes when no registered
/// sharer is still to start or still writing.
pub fn file_complete(sharers: impl IntoIterator<Item = SharerState>) -> bool {
    sharers.into_iter().all(|s| {
        matches!(
            s,
            SharerState::Released | SharerState::NoChannelState | SharerState::Written
        )
    })
}

/// Micros to write `bytes` at `throughput` bytes per second.
pub fn write_time(bytes: u64, throughput: u64) -> u64 {
    (bytes as u128 * 1_000_000 / throughput.max(1) as u128) as u64
}

/// Reading a task's input channel state back at restore: Flink's
/// `SequentialChannelStateReaderImpl.readInputData` on the task's `channel-state-unspilling`
/// thread (Flink 1.12–2.x). It reads the task's recovered buffers one after another, in
/// channel order, at the checkpoint storage's throughput; each goes into a buffer of its
/// `RecoveredInputChannel`, which first asks for one (`requestBufferBlocking`): the
/// channel's exclusive buffers (`buffers-per-channel`), then the gate's floating ones
/// (`floating-buffers-per-gate`). With none free the reader blocks until the task consumed
/// one — recovered input flows through bounded buffers, and a slow task slows the read.
///
/// With FLIP-547's checkpointing during recovery (Flink 2.3,
/// `unaligned.during-recovery.enabled`), the reader never waits for a buffer: FLIP-547
/// § 4.5 gives the channel-state thread three paths — storage → buffer when a network
/// buffer is free (P1), storage → local disk when none is (P2, the spill), and local disk →
/// buffer as buffers free up, before any further storage read (P3). Phase 1 ends when
/// storage is read out: from then a checkpoint can take every recovered buffer, in a
/// channel or spilled, as channel state ([`ChannelStateReader::spilled`]). Simplified: the
/// local disk is taken as instantaneous next to the checkpoint storage (no spill or replay
/// time), and a freed buffer takes the earliest spilled buffer its channel may hold.
///
/// Simplified: each task reads at the full storage throughput (reads of different tasks do
/// not share it), and reading a file has no fixed cost (Flink opens each state handle's
/// stream once; the playground's file cost models creation at the metadata service).
#[derive(Clone, Debug, Default)]
pub struct ChannelStateReader {
    /// Buffers still in storage, in read order: (channel, gate, buffer).
    pub to_read: VecDeque<(usize, usize, Buffer)>,
    /// A read is in progress (the head of `to_read`), done at this time.
    pub reading_until: Option<u64>,
    /// Per channel: recovered buffers delivered and not yet consumed.
    pub in_use: BTreeMap<usize, u32>,
    /// FLIP-547's spill path: reads do not wait for a network buffer.
    pub spill: bool,
    /// The read in progress goes to local disk (no network buffer was free for it).
    pub reading_to_disk: bool,
    /// Buffers read and spilled to local disk, in spill order: (channel, gate, buffer).
    pub spilled: VecDeque<(usize, usize, Buffer)>,
}

/// Where a finished read goes.
#[derive(Clone, Debug)]
pub enum ReadDone {
    /// Into its channel (a network buffer was taken for it).
    Channel(usize, Buffer),
    /// To local disk, until a buffer of its channel frees up (FLIP-547's P2).
    Spilled,
}

/// What the reader wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStep {
    /// Start reading the head buffer; it is in memory after this many micros.
    Read(u64),
    /// The head's channel has no free buffer (or a read is in progress).
    Blocked,
    /// Everything is read.
    Done,
}

impl ChannelStateReader {
    /// Decides the next read: the head buffer needs an exclusive buffer of its channel or a
    /// floating buffer of its gate.
    pub fn next(
        &mut self,
        buffers_per_channel: u32,
        floating_per_gate: u32,
        throughput: u64,
        now: u64,
        gate_of: impl Fn(usize) -> usize,
    ) -> ReadStep {
        if self.reading_until.is_some() {
            return ReadStep::Blocked;
        }
        let Some((c, gate, b)) = self.to_read.front() else {
            return ReadStep::Done;
        };
        let (c, gate, bytes) = (*c, *gate, b.bytes);
        let has_buffer =
            self.has_free_buffer(c, gate, buffers_per_channel, floating_per_gate, &gate_of);
        // P3 before P1: spilled data goes first into any buffer that frees up.
        if !has_buffer || !self.spilled.is_empty() {
            if !self.spill {
                return ReadStep::Blocked;
            }
            self.reading_to_disk = true;
        } else {
            self.reading_to_disk = false;
            *self.in_use.entry(c).or_default() += 1;
        }
        let took = write_time(bytes as u64, throughput);
        self.reading_until = Some(now + took);
        ReadStep::Read(took)
    }

    /// Whether channel `c` (of `gate`) may take one more recovered buffer: one of its
    /// exclusive buffers, else one of the gate's floating ones.
    fn has_free_buffer(
        &self,
        c: usize,
        gate: usize,
        buffers_per_channel: u32,
        floating_per_gate: u32,
        gate_of: &impl Fn(usize) -> usize,
    ) -> bool {
        let own = self.in_use.get(&c).copied().unwrap_or(0);
        let floating_used: u32 = self
            .in_use
            .iter()
            .filter(|(ch, _)| gate_of(**ch) == gate)
            .map(|(_, n)| n.saturating_sub(buffers_per_channel))
            .sum();
        own < buffers_per_channel || floating_used < floating_per_gate
    }

    /// The read in progress finished: into its channel, or spilled to local disk.
    pub fn read_done(&mut self) -> Option<ReadDone> {
        self.reading_until = None;
        let (c, gate, b) = self.to_read.pop_front()?;
        if std::mem::take(&mut self.reading_to_disk) {
            self.spilled.push_back((c, gate, b));
            Some(ReadDone::Spilled)
        } else {
            Some(ReadDone::Channel(c, b))
        }
    }

    /// The task consumed a recovered buffer of channel `c`: its buffer is free again.
    pub fn consumed(&mut self, c: usize) {
        if let Some(n) = self.in_use.get_mut(&c) {
            *n = n.saturating_sub(1);
        }
    }

    /// FLIP-547's P3: the earliest spilled buffer whose channel may take a buffer now,
    /// taken off the local disk into that channel.
    pub fn unspill(
        &mut self,
        buffers_per_channel: u32,
        floating_per_gate: u32,
        gate_of: impl Fn(usize) -> usize,
    ) -> Option<(usize, Buffer)> {
        let i = self.spilled.iter().position(|(c, gate, _)| {
            self.has_free_buffer(*c, *gate, buffers_per_channel, floating_per_gate, &gate_of)
        })?;
        let (c, _, b) = self.spilled.remove(i)?;
        *self.in_use.entry(c).or_default() += 1;
        Some((c, b))
    }

    /// Storage is read out (FLIP-547's phase 1 is over): every recovered buffer is in a
    /// channel or on local disk.
    pub fn storage_read(&self) -> bool {
        self.to_read.is_empty() && self.reading_until.is_none()
    }

    /// Buffers of channel `c` not read yet.
    pub fn unread(&self, c: usize) -> usize {
        self.to_read.iter().filter(|(ch, _, _)| *ch == c).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(bytes: u32) -> Buffer {
        Buffer {
            id: 0,
            records: Vec::new(),
            bytes,
            capacity: bytes,
            captured: None,
            recovered: true,
            replayed_input: true,
            seq: 0,
        }
    }

    /// Like Flink's `ChannelStateWriteRequestExecutorFactoryTest.testReuseExecutorForSameJobId`
    /// (an executor takes `max-subtasks-per-channel-state-file` subtasks, then a new one
    /// starts), per TaskManager: tasks of TaskManagers 0, 1, 0, 1, 0, 0 with 2 per file.
    #[test]
    fn writers_fill_per_task_manager_in_registration_order() {
        let tms = [0, 1, 0, 1, 0, 0];
        let w = assign_writers(&tms, 2, true);
        let groups: Vec<Vec<usize>> = w.iter().map(|w| w.tasks.clone()).collect();
        assert_eq!(groups, vec![vec![0, 2], vec![1, 3], vec![4, 5]]);
        // Version 1: the job's tasks in order, whatever their TaskManager.
        let groups: Vec<Vec<usize>> = assign_writers(&tms, 2, false)
            .iter()
            .map(|w| w.tasks.clone())
            .collect();
        assert_eq!(groups, vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        // Flink's default of 5: one TaskManager with 6 subtasks needs two files.
        assert_eq!(assign_writers(&[0; 6], 5, true).len(), 2);
    }

    /// Like `ChannelStateCheckpointWriterTest.testRegisterSubtaskResult...`: the file waits
    /// for every registered subtask's input and output; released subtasks do not count.
    #[test]
    fn a_file_completes_only_when_every_registered_sharer_wrote_everything() {
        use SharerState::*;
        assert!(!file_complete([Written, Writing]));
        assert!(!file_complete([Written, NotStarted]));
        assert!(file_complete([Written, Released, NoChannelState]));
        assert!(file_complete([Written, Written]));
    }

    /// Like Flink's `SequentialChannelStateReaderImplTest` with a bounded pool: the reader
    /// blocks once the channel's exclusive and the gate's floating buffers are in use.
    #[test]
    fn reader_blocks_on_recovered_channel_buffers_and_resumes_on_consumption() {
        let mut r = ChannelStateReader::default();
        for _ in 0..5 {
            r.to_read.push_back((7, 0, buffer(1_000)));
        }
        let gate = |_c: usize| 0;
        // 2 exclusive + 1 floating; 1 MB/s: 1 ms per 1000-byte buffer.
        for i in 0..3 {
            assert_eq!(
                r.next(2, 1, 1_000_000, i * 1_000, gate),
                ReadStep::Read(1_000)
            );
            assert!(r.read_done().is_some());
        }
        assert_eq!(r.next(2, 1, 1_000_000, 3_000, gate), ReadStep::Blocked);
        r.consumed(7);
        assert_eq!(r.next(2, 1, 1_000_000, 4_000, gate), ReadStep::Read(1_000));
        assert_eq!(
            r.next(2, 1, 1_000_000, 4_000, gate),
            ReadStep::Blocked,
            "one read at a time"
        );
        assert!(r.read_done().is_some());
        assert_eq!(r.unread(7), 1);
    }

    /// FLIP-547 § 4.5: with the spill path the reader never blocks; what finds no buffer is
    /// spilled (P2), and a freed buffer takes spilled data before any further read (P3).
    #[test]
    fn spilling_reader_reads_storage_out_and_replays_the_disk_first() {
        let mut r = ChannelStateReader {
            spill: true,
            ..Default::default()
        };
        for _ in 0..5 {
            r.to_read.push_back((7, 0, buffer(1_000)));
        }
        let gate = |_c: usize| 0;
        let mut delivered = 0;
        for i in 0..5 {
            assert_eq!(
                r.next(2, 1, 1_000_000, i * 1_000, gate),
                ReadStep::Read(1_000)
            );
            if let Some(ReadDone::Channel(7, _)) = r.read_done() {
                delivered += 1;
            }
        }
        assert_eq!(delivered, 3, "2 exclusive + 1 floating buffers");
        assert_eq!(r.spilled.len(), 2);
        assert!(
            r.storage_read(),
            "storage is read out with 2 buffers on disk"
        );
        assert_eq!(r.next(2, 1, 1_000_000, 5_000, gate), ReadStep::Done);
        assert!(r.unspill(2, 1, gate).is_none(), "no buffer free yet");
        r.consumed(7);
        assert!(r.unspill(2, 1, gate).is_some());
        assert!(r.unspill(2, 1, gate).is_none());
        assert_eq!(r.spilled.len(), 1);
    }

    /// A read that would find a buffer still spills while older data waits on disk, so
    /// the channel's order is kept (P3 before P1).
    #[test]
    fn spilled_data_keeps_its_place_before_later_reads() {
        let mut r = ChannelStateReader {
            spill: true,
            ..Default::default()
        };
        for _ in 0..3 {
            r.to_read.push_back((7, 0, buffer(1_000)));
        }
        let gate = |_c: usize| 0;
        assert_eq!(r.next(1, 0, 1_000_000, 0, gate), ReadStep::Read(1_000));
        assert!(matches!(r.read_done(), Some(ReadDone::Channel(7, _))));
        assert_eq!(r.next(1, 0, 1_000_000, 1_000, gate), ReadStep::Read(1_000));
        assert!(matches!(r.read_done(), Some(ReadDone::Spilled)));
        r.consumed(7);
        assert_eq!(r.next(1, 0, 1_000_000, 2_000, gate), ReadStep::Read(1_000));
        assert!(
            matches!(r.read_done(), Some(ReadDone::Spilled)),
            "the disk is not empty"
        );
        assert_eq!(r.spilled.len(), 2);
    }
}
