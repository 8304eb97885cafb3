//! The Chinese catalogue: (English key, Chinese text).
//!
//! Contract: every key the interface passes to `t` / `tf`, every code of a structured
//! log message (`engine::log::Msg`) and every engine word (`Arg::Word`) has one entry
//! here, with the same placeholders `{N}` as its key (checked by the tests of
//! `ui::i18n`). Flink's terms inside the texts stay in Latin letters (config keys,
//! RUNNING, checkpoint_type, metric names); the concepts use the source article's words.

/// (English, 中文).
pub const ZH: &[(&str, &str)] = &[
    // Engine words (Arg::Word) and checkpoint-step codes.
    ("checkpoint", "检查点"),
    ("savepoint", "保存点"),
    ("aligned", "对齐"),
    ("unaligned", "非对齐"),
    ("aligned with timeout", "对齐（带超时）"),
    ("at-least-once", "至少一次"),
    ("synchronous savepoint (stop --drain)", "同步保存点（stop --drain）"),
    ("synchronous savepoint (stop)", "同步保存点（stop）"),
    ("{0} {1} triggered ({2}) at {3} tasks", "{0} {1} 已触发（{2}），共 {3} 个任务"),
    ("{0} {1} completed in {2} ({3}; {4} state, {5} in-flight data persisted in {6} channel-state files)", "{0} {1} 完成，耗时 {2}（{3}；状态 {4}，在途数据 {5}，持久化到 {6} 个通道状态文件）"),
    ("checkpoint {0}: unaligned barrier at {1} (aligned-checkpoint timeout passed): overtook {2} input buffers; sync phase starts", "检查点 {0}：非对齐屏障到达 {1}（已超过对齐检查点超时）：超越了 {2} 个输入缓冲区；同步阶段开始"),
    ("checkpoint {0}: unaligned barrier at {1}: overtook {2} input buffers; sync phase starts", "检查点 {0}：非对齐屏障到达 {1}：超越了 {2} 个输入缓冲区；同步阶段开始"),
    ("checkpoint {0}: {1} took its {2} snapshot ({3} state); barrier overtook {4} output buffers (captured as channel state)", "检查点 {0}：{1} 完成{2}快照（状态 {3}）；屏障超越了 {4} 个输出缓冲区（作为通道状态捕获）"),
    ("checkpoint {0}: {1} took its {2} snapshot ({3} state)", "检查点 {0}：{1} 完成{2}快照（状态 {3}）"),
    ("checkpoint {0}: aligned-checkpoint timeout at {1}'s output: {2} queued barriers turned unaligned, overtaking {3} buffers", "检查点 {0}：{1} 的输出端达到对齐检查点超时：{2} 个排队的屏障转为非对齐，超越了 {3} 个缓冲区"),
    ("{0} acknowledged checkpoint {1}: {2} state, {3} in-flight", "{0} 确认了检查点 {1}：状态 {2}，在途数据 {3}"),
    ("{0} skips checkpoint {1}: it was notified as aborted; cancel marker sent downstream", "{0} 跳过检查点 {1}：已收到中止通知；取消标记已发往下游"),
    ("sync phase: {0} takes its synchronous snapshot (the task thread is held; barriers go to the outputs)", "同步阶段：{0} 正在做同步快照（任务线程暂停处理数据；屏障发往输出端）"),
    ("async phase begins: {0} finished the synchronous snapshot; its state and channel state are now written in the background", "异步阶段开始：{0} 完成了同步快照；它的状态和通道状态正在后台写出"),
    ("{0} (checkpoint {1})", "{0}（检查点 {1}）"),
];
