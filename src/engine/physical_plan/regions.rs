//! Failover regions over the execution graph, as
//! `SchedulingPipelinedRegionComputeUtil.computePipelinedRegions` computes them (2.x):
//! `PipelinedRegionComputeUtil.buildRawRegions` walks the subtasks in topological order and
//! merges each with the region of every producer it consumes from over a must-be-pipelined
//! result. A streaming job's results are all pipelined (`PIPELINED_BOUNDED`), so every
//! channel joins its two ends: an all-to-all edge joins all its producers and consumers
//! into one region, a pointwise edge (forward, rescale) only each slice. The later merge of
//! regions on cycles (`mergeRegionsOnCycles`, FLINK-17330) only follows blocking results,
//! which a streaming job has none of. Chained operators are one subtask, so one region.

use super::{PlanChannel, Region};

/// The regions of `subtasks` subtasks joined by `channels`, ordered by their first subtask.
pub fn compute(subtasks: usize, channels: &[PlanChannel]) -> Vec<Region> {
    let mut parent: Vec<usize> = (0..subtasks).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for c in channels {
        let (a, b) = (root(&mut parent, c.from), root(&mut parent, c.to));
        if a != b {
            // The smaller id becomes the root, so a region is named by its first subtask.
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            parent[hi] = lo;
        }
    }
    let mut region_of_root = vec![usize::MAX; subtasks];
    let mut regions: Vec<Region> = Vec::new();
    for s in 0..subtasks {
        let r = root(&mut parent, s);
        if region_of_root[r] == usize::MAX {
            region_of_root[r] = regions.len();
            regions.push(Region {
                subtasks: Vec::new(),
            });
        }
        regions[region_of_root[r]].subtasks.push(s);
    }
    regions
}
