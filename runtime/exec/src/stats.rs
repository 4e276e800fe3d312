//! Per-launch and per-round statistics of a run, for `irgc run --stats` and `--json`.
//!
//! They answer the questions one asks of a data-driven program: how many rounds, how big the frontier was each
//! round, which branch a `hybrid` took, where the time went. Records are capped at [`MAX_RECORDS`] of each kind so
//! a program with millions of tiny launches cannot exhaust memory on bookkeeping; `dropped` counts the rest.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

/// The most launch records (and, separately, pipe-round records) kept.
pub const MAX_RECORDS: usize = 1 << 20;

/// Which branch of a `hybrid` a launch ran under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Dense,
    Sparse,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Dense => "dense",
            Mode::Sparse => "sparse",
        }
    }
}

/// Items one launch pushed to one worklist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pushed {
    pub worklist: String,
    pub items: u64,
}

/// One kernel launch (a retry relaunch is a launch of its own, with `retry` > 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchRecord {
    /// Pipe rounds started so far in the run (0 before the first `pipe` round).
    pub round: u64,
    pub kernel: String,
    /// Iterations of the kernel's space.
    pub items: u64,
    /// What the launch pushed, per worklist the kernel pushes to (after this launch and its retries).
    pub pushed: Vec<Pushed>,
    /// 0 for the launch itself, `k` for its `k`-th retry relaunch.
    pub retry: u32,
    /// The innermost enclosing `hybrid` branch, if any.
    pub mode: Option<Mode>,
    /// What the kernel's reduction (`-> sum u64`, `-> or bool`, ...) returned from this launch, as a number
    /// (`true` is 1; integers past 2^53 are rounded): the convergence trace of a loop that stops on it.
    pub reduced: Option<f64>,
    pub seconds: f64,
}

/// One round of a `pipe`: the worklist's size when the round started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PipeRound {
    pub worklist: String,
    pub round: u64,
    pub size: u64,
    /// For a round run inside an outlined pipe's kernel (whose launches have no records of their own): its time
    /// by the GPU's clock, from its start to the next round's, in ms. `None` for a round run from the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// For a round run inside the kernel that ran a `hybrid`: whether one ran `dense` (`None` without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<bool>,
}

/// One decision of a `hybrid`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridChoice {
    pub worklist: String,
    pub size: u64,
    /// `threshold × num_nodes`: the size above which `dense` runs; `None` for `above auto` (the choice came from
    /// the earlier rounds' times, not one size).
    pub above: Option<f64>,
    pub mode: Mode,
}

/// A `pipe` the device ran as one persistent kernel (iteration outlining): its rounds have no records of their
/// own. Recorded with or without `collect_stats`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlinedRun {
    /// The pipe's worklist (empty for an outlined loop).
    pub worklist: String,
    /// The worklist's size when the pipe started (0 for a loop).
    pub size: u64,
    pub rounds: u64,
}

/// One round of an outlined loop that ran inside its GPU kernel (a round the host ran is its launches' records):
/// the GPU clock's time, and the result of the round's first reducing launch, the convergence trace the host's
/// launch records give.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopRound {
    /// Pipe rounds started so far in the run (as [`LaunchRecord::round`]).
    pub round: u64,
    /// The loop's round, from 1, counting the rounds it ran from the host.
    pub iteration: u64,
    /// The launch records kept before this round: where it falls among them.
    pub after_launches: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduced: Option<f64>,
    /// From the round's start to the next one's (or the kernel's end), grid barriers included.
    pub ms: f64,
}

/// A kernel whose unrolled entry and rolled twin the device timed on one launch each (on a skewed graph; see
/// `irgc_artifact::rolled_entry`), and which of the two it kept for the rest of the run. Recorded with or without
/// `collect_stats`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnrollChoice {
    pub kernel: String,
    pub unrolled_ms: f64,
    pub rolled_ms: f64,
    /// Whether the unrolled entry was kept (the faster; on a tie too).
    pub kept_unrolled: bool,
}

/// An outlined loop's trial in its persistent kernel ([`crate::loop_gate`]): what a round took from the host (the
/// median of its first rounds) and in the kernel (the trial's time over its rounds, the kernel's start included),
/// and where the rest of the loop ran. Recorded with or without `collect_stats`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopChoice {
    pub host_us: f64,
    pub kernel_us: f64,
    pub trial_rounds: u64,
    /// Whether the rest of the loop ran in the kernel (a round was faster there).
    pub kept_kernel: bool,
}

/// One value a plan's `print` recorded. Kept whether or not statistics are collected: it is the program's own
/// output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Printed {
    /// The expression as the program wrote it.
    pub label: String,
    /// The value's type (`u32`, `f64`, ...).
    #[serde(rename = "type")]
    pub ty: String,
    /// The value as text (exact for every type).
    pub text: String,
    /// The value as a number (`true` is 1; integers past 2^53 rounded), for plots and JSON readers.
    pub value: f64,
    /// The pipe round it was printed in (0 outside every pipe).
    pub round: u64,
}

/// One `G.contract` of the plan: the graph before and after, and the time it took (reading the labels and the
/// graph back, building the quotient, writing it). Recorded with or without `collect_stats`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contraction {
    pub nodes: u64,
    pub edges: u64,
    /// The quotient's nodes (the distinct labels) and edges.
    pub groups: u64,
    pub new_edges: u64,
    pub seconds: f64,
    /// Where the time went.
    #[serde(default)]
    pub phases: ContractPhases,
}

/// The parts of one contraction's time, in seconds: what a faster contraction has to cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContractPhases {
    /// Numbering the groups (on the host: reading the labels back first).
    pub labels: f64,
    /// Building the quotient's rows: on the device (its hash tables' offsets, kernels, row offsets) or the host.
    pub quotient: f64,
    /// Writing a host-built quotient into the graph's buffers, and the edges' sources where the program reads them.
    pub upload: f64,
    /// Zeroing the node and edge arrays, emptying the worklists, mapping the input's nodes to their groups.
    pub reset: f64,
    /// Whether the device contracted ([`crate::Device::contract`]); else the host did.
    #[serde(default)]
    pub on_device: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub launches: Vec<LaunchRecord>,
    pub pipe_rounds: Vec<PipeRound>,
    pub hybrid: Vec<HybridChoice>,
    pub outlined: Vec<OutlinedRun>,
    /// What the plan's `print`s recorded, in order.
    #[serde(default)]
    pub printed: Vec<Printed>,
    /// The plan's graph contractions, in order.
    #[serde(default)]
    pub contractions: Vec<Contraction>,
    /// The kernels whose unrolled and rolled entries the device timed, in kernel order.
    #[serde(default)]
    pub unroll_choices: Vec<UnrollChoice>,
    /// The trials of outlined loops in their kernels ([`crate::loop_gate`]), in order.
    #[serde(default)]
    pub loop_choices: Vec<LoopChoice>,
    /// The rounds outlined loops ran inside their kernels, in order.
    #[serde(default)]
    pub loop_rounds: Vec<LoopRound>,
    /// Records not kept because of [`MAX_RECORDS`].
    pub dropped: u64,
}

/// A launch record or a round a loop ran in its kernel, as [`Stats::in_run_order`] gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunStep<'a> {
    Launch(&'a LaunchRecord),
    LoopRound(&'a LoopRound),
}

impl Stats {
    /// The launch records and the loops' kernel rounds merged in the order they ran (a kernel round after the
    /// [`LoopRound::after_launches`] launches kept before it).
    pub fn in_run_order(&self) -> impl Iterator<Item = RunStep<'_>> + '_ {
        let mut rounds = self.loop_rounds.iter().peekable();
        let mut launches = self.launches.iter().enumerate().peekable();
        std::iter::from_fn(move || {
            let next_launch = launches.peek().map(|&(i, _)| i as u64);
            match rounds.next_if(|r| next_launch.is_none_or(|i| r.after_launches <= i)) {
                Some(r) => Some(RunStep::LoopRound(r)),
                None => launches.next().map(|(_, l)| RunStep::Launch(l)),
            }
        })
    }

    /// Writes one CSV row per launch (`round,kernel,retry,items,pushed,mode,reduced,ms`; `pushed` as
    /// `worklist:items` pairs separated by spaces), for spreadsheets and pandas, with a row `(in kernel) loop`
    /// (no items) for each round an outlined loop ran in its kernel, where it ran among the launches. The pipe
    /// rounds and `hybrid` decisions are in the JSON form only.
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "round,kernel,retry,items,pushed,mode,reduced,ms")?;
        let reduced = |r: Option<f64>| r.map_or(String::new(), |r| r.to_string());
        for step in self.in_run_order() {
            let l = match step {
                RunStep::Launch(l) => l,
                RunStep::LoopRound(r) => {
                    writeln!(out, "{},(in kernel) loop,0,,,,{},{}", r.round, reduced(r.reduced), r.ms)?;
                    continue;
                }
            };
            let pushed: Vec<String> = l.pushed.iter().map(|p| format!("{}:{}", p.worklist, p.items)).collect();
            writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                l.round,
                l.kernel,
                l.retry,
                l.items,
                pushed.join(" "),
                l.mode.map_or("", Mode::name),
                reduced(l.reduced),
                l.seconds * 1e3
            )?;
        }
        out.flush()
    }

    pub(crate) fn keep<T>(list: &mut Vec<T>, dropped: &mut u64, item: T) {
        if list.len() < MAX_RECORDS {
            list.push(item);
        } else {
            *dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{LaunchRecord, LoopRound, Stats};

    #[test]
    fn the_csv_puts_a_loops_kernel_rounds_where_they_ran_among_the_launches() {
        let launch = |reduced: f64| LaunchRecord {
            round: 0,
            kernel: "step".into(),
            items: 9,
            pushed: vec![],
            retry: 0,
            mode: None,
            reduced: Some(reduced),
            seconds: 2e-3,
        };
        let in_kernel =
            |after_launches, reduced| LoopRound { round: 0, iteration: 0, after_launches, reduced, ms: 0.5 };
        let stats = Stats {
            launches: vec![launch(1.0), launch(0.0)],
            loop_rounds: vec![in_kernel(1, Some(1.0)), in_kernel(2, None)],
            ..Stats::default()
        };
        let mut out = Vec::new();
        stats.write_csv(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "round,kernel,retry,items,pushed,mode,reduced,ms\n0,step,0,9,,,1,2\n0,(in kernel) loop,0,,,,1,0.5\n\
             0,step,0,9,,,0,2\n0,(in kernel) loop,0,,,,,0.5\n"
        );
    }
}
