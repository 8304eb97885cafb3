//! Retained checkpoints and restore modes: what a resubmitted job can restore from.
//!
//! Contract: [`RetainedCheckpoints`] holds the completed checkpoints the job keeps
//! (`execution.checkpointing.num-retained`, the newest ones; savepoints stay in the
//! coordinator's own list, they belong to the user), applies the retention policy when the
//! job is cancelled, and resolves a resubmission's `from` ([`RestoreFrom`]) to one snapshot
//! or says, in one sentence, why none is there. It takes no decision about the running job.
//!
//! Flink 2.3, followed:
//! - `CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION`
//!   (`execution.checkpointing.externalized-checkpoint-retention`, default
//!   `NO_EXTERNALIZED_CHECKPOINTS`) with `ExternalizedCheckpointRetention`:
//!   `DELETE_ON_CANCELLATION` and `NO_EXTERNALIZED_CHECKPOINTS` discard the job's checkpoints
//!   when it is cancelled (`CheckpointProperties.discardOnJobCancelled`), only
//!   `RETAIN_ON_CANCELLATION` keeps them for a later `flink run -s`.
//! - `CheckpointingOptions.MAX_RETAINED_CHECKPOINTS` (`execution.checkpointing.num-retained`,
//!   default 1): `DefaultCompletedCheckpointStore` keeps the newest n and subsumes the rest.
//! - `StateRecoveryOptions.RESTORE_MODE` (`execution.state-recovery.claim-mode`, default
//!   `NO_CLAIM`) with `RecoveryClaimMode`: `CLAIM` — the new job owns the snapshot, it joins
//!   its completed-checkpoint store and is discarded once subsumed; `NO_CLAIM` — the
//!   snapshot stays the user's (the new job never deletes it; in Flink its first checkpoint
//!   is a full one, which with the playground's non-incremental state changes nothing).
//!   Flink 2.0 removed `LEGACY`.
//!
//! Simplified: savepoints are never discarded by the job unless claimed; the snapshot a
//! `NO_CLAIM` job restores stays its failover fallback until its first checkpoint completes
//! (Flink registers it in the store the same way, `forUnclaimedSnapshot`).

use super::coordinator::CompletedCheckpoint;
use serde::Serialize;

/// `ExternalizedCheckpointRetention`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Retention {
    DeleteOnCancellation,
    RetainOnCancellation,
    NoExternalizedCheckpoints,
}

impl Retention {
    pub fn parse(v: &str) -> Result<Retention, String> {
        match v.trim().to_ascii_uppercase().as_str() {
            "DELETE_ON_CANCELLATION" => Ok(Retention::DeleteOnCancellation),
            "RETAIN_ON_CANCELLATION" => Ok(Retention::RetainOnCancellation),
            "NO_EXTERNALIZED_CHECKPOINTS" => Ok(Retention::NoExternalizedCheckpoints),
            _ => Err(format!(
                "'{v}' is not DELETE_ON_CANCELLATION, RETAIN_ON_CANCELLATION or NO_EXTERNALIZED_CHECKPOINTS"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Retention::DeleteOnCancellation => "DELETE_ON_CANCELLATION",
            Retention::RetainOnCancellation => "RETAIN_ON_CANCELLATION",
            Retention::NoExternalizedCheckpoints => "NO_EXTERNALIZED_CHECKPOINTS",
        }
    }

    /// `CheckpointProperties.discardOnJobCancelled`.
    pub fn discard_on_cancel(self) -> bool {
        self != Retention::RetainOnCancellation
    }
}

/// `RecoveryClaimMode` (Flink 2.x).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ClaimMode {
    Claim,
    NoClaim,
}

impl ClaimMode {
    pub fn parse(v: &str) -> Result<ClaimMode, String> {
        match v.trim().to_ascii_uppercase().as_str() {
            "CLAIM" => Ok(ClaimMode::Claim),
            "NO_CLAIM" => Ok(ClaimMode::NoClaim),
            "LEGACY" => Err("'LEGACY' was removed in Flink 2.0; use CLAIM or NO_CLAIM".into()),
            _ => Err(format!("'{v}' is not CLAIM or NO_CLAIM")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ClaimMode::Claim => "CLAIM",
            ClaimMode::NoClaim => "NO_CLAIM",
        }
    }
}

/// Which snapshot a resubmission restores (`flink run -s PATH`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum RestoreFrom {
    /// The newest retained checkpoint.
    Latest,
    /// The newest savepoint.
    LatestSavepoint,
    /// Retained checkpoint `id`.
    Checkpoint(u64),
    /// Savepoint `id` (savepoints and checkpoints share one id counter, as in Flink).
    Savepoint(u64),
}

impl RestoreFrom {
    /// `latest`, `savepoint`, `checkpoint:N` or `savepoint:N`.
    pub fn parse(v: &str) -> Result<RestoreFrom, String> {
        let v = v.trim();
        let id = |s: &str| {
            s.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("'{s}' is not a checkpoint id (1 or more)"))
        };
        match v {
            "latest" => Ok(RestoreFrom::Latest),
            "savepoint" => Ok(RestoreFrom::LatestSavepoint),
            _ => match v.split_once(':') {
                Some(("checkpoint", n)) => Ok(RestoreFrom::Checkpoint(id(n)?)),
                Some(("savepoint", n)) => Ok(RestoreFrom::Savepoint(id(n)?)),
                _ => Err(format!(
                    "'{v}' is not latest, savepoint, checkpoint:N or savepoint:N"
                )),
            },
        }
    }

    pub fn text(&self) -> String {
        match self {
            RestoreFrom::Latest => "latest".into(),
            RestoreFrom::LatestSavepoint => "savepoint".into(),
            RestoreFrom::Checkpoint(n) => format!("checkpoint:{n}"),
            RestoreFrom::Savepoint(n) => format!("savepoint:{n}"),
        }
    }
}

/// The job's retained (externalized) checkpoints, oldest first.
#[derive(Clone, Debug, Default)]
pub struct RetainedCheckpoints {
    pub checkpoints: Vec<CompletedCheckpoint>,
    /// Why the store is empty, when the retention policy emptied it at a cancellation.
    pub discarded: Option<String>,
    /// Ids of snapshots a job restored in `NO_CLAIM` mode: they sit in the store
    /// (`CheckpointCoordinator.restoreSavepoint` adds the restored snapshot with
    /// `addCheckpointAndSubsumeOldestOne`) but stay the user's — their properties
    /// (`CheckpointProperties.forUnclaimedSnapshot`) never let the job discard them.
    unclaimed: std::collections::BTreeSet<u64>,
}

impl RetainedCheckpoints {
    /// A checkpoint completed: the store keeps the newest `num_retained`.
    pub fn completed(&mut self, cp: CompletedCheckpoint, num_retained: u32) {
        self.checkpoints.push(cp);
        self.discarded = None;
        let keep = num_retained.max(1) as usize;
        if self.checkpoints.len() > keep {
            let drop = self.checkpoints.len() - keep;
            self.checkpoints.drain(..drop);
        }
    }

    /// A resubmitted job restored `cp`: it joins the job's store as
    /// `CheckpointCoordinator.restoreSavepoint` adds it, so until the new job's first
    /// checkpoint subsumes it, "the latest retained checkpoint" is the snapshot the job
    /// runs from (not an older one of the job before, whose output after it is already
    /// committed). Under `NO_CLAIM` the job never discards it.
    pub fn restored(&mut self, cp: CompletedCheckpoint, claim: ClaimMode, num_retained: u32) {
        self.checkpoints.retain(|c| c.id != cp.id);
        if claim == ClaimMode::NoClaim {
            self.unclaimed.insert(cp.id);
        }
        self.completed(cp, num_retained);
    }

    /// The job was cancelled: what the retention policy keeps (never an unclaimed
    /// snapshot). Returns how many checkpoints were discarded.
    pub fn job_cancelled(&mut self, retention: Retention) -> usize {
        if !retention.discard_on_cancel() {
            return 0;
        }
        let before = self.checkpoints.len();
        let unclaimed = &self.unclaimed;
        self.checkpoints.retain(|c| unclaimed.contains(&c.id));
        let n = before - self.checkpoints.len();
        if n > 0 {
            self.discarded = Some(format!(
                "the job's {n} retained checkpoint(s) were discarded when it was cancelled \
                 (execution.checkpointing.externalized-checkpoint-retention: {}); set \
                 RETAIN_ON_CANCELLATION, or resubmit from a savepoint",
                retention.name()
            ));
        }
        n
    }

    /// The snapshot `from` names, among the retained checkpoints and `savepoints`.
    pub fn resolve(
        &self,
        from: &RestoreFrom,
        savepoints: &[CompletedCheckpoint],
    ) -> Result<CompletedCheckpoint, String> {
        let gone = || {
            self.discarded
                .clone()
                .unwrap_or_else(|| "the job has no retained checkpoint".into())
        };
        let found = match from {
            RestoreFrom::Latest => self.checkpoints.last().ok_or_else(gone)?,
            RestoreFrom::LatestSavepoint => savepoints
                .last()
                .ok_or_else(|| "no savepoint was taken".to_string())?,
            RestoreFrom::Checkpoint(id) => self
                .checkpoints
                .iter()
                .find(|c| c.id == *id)
                .ok_or_else(|| {
                    format!("checkpoint {id} is not retained: {}", {
                        let ids: Vec<String> =
                            self.checkpoints.iter().map(|c| c.id.to_string()).collect();
                        if ids.is_empty() {
                            gone()
                        } else {
                            format!("the job retains {}", ids.join(", "))
                        }
                    })
                })?,
            RestoreFrom::Savepoint(id) => savepoints
                .iter()
                .find(|c| c.id == *id)
                .ok_or_else(|| format!("there is no savepoint {id}"))?,
        };
        Ok(found.clone())
    }
}
