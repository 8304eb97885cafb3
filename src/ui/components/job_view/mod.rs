//! The job view's pure maths, compiled natively too (so `cargo test --lib` checks it):
//! [`zoom`] the viewport (zoom, pan, fit, keys), [`lanes`] the semantic zoom (which level
//! of detail, and the aggregated lane of each operator pair), [`plan_layout`] the rows of
//! the physical plan (TaskManagers and their slots), [`chips`] where the aggregated
//! lanes' figures go, [`blocks`] the operator blocks of a job too big for one node per
//! subtask and which subtasks a zoomed-in view draws. No DOM, no engine access: the panel
//! (`job_graph.rs`) feeds them numbers and engine view data and draws what they return.

pub mod blocks;
pub mod chips;
pub mod lanes;
pub mod plan_layout;
pub mod zoom;
