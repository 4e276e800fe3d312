//! The iteration-outlining flags of `run` and `bench`: whether pipes and loops may run as one persistent GPU
//! kernel instead of round by round from the host.

use clap::{Args, ValueEnum};
use irgc_runtime::LoopOutlining;

#[derive(Args, Clone, Debug)]
pub struct OutlineArgs {
    /// Run every pipe and loop round by round from the host (the same as --disable-pass outline), e.g. to measure
    /// what iteration outlining saves. By default, with --backend cuda, a pipe whose rounds only launch kernels and
    /// update host locals runs as one persistent GPU kernel, which saves a launch and a read-back per round.
    #[arg(long)]
    pub no_outline: bool,
    /// When a `while`/`loop` over kernels and reductions runs as one persistent GPU kernel. `auto` (the default)
    /// times its first rounds from the host and a few in the kernel, then runs the rest where a round was
    /// faster: long loops of light rounds win (topology BFS on a road network: 51 -> 11 ms on an H200), heavy
    /// sweeps lose (atomic SSSP on a random geometric graph: 430 -> 542 ms in the kernel). `always` enters the
    /// kernel at the first round (what `--outline-loops` alone means), `never` runs every round from the host.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_value = "auto",
        default_missing_value = "always",
        conflicts_with = "no_outline"
    )]
    pub outline_loops: LoopsWhen,
}

/// `--outline-loops`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LoopsWhen {
    Never,
    Auto,
    Always,
}

impl OutlineArgs {
    /// The runtime's loop setting.
    pub fn loops(&self) -> LoopOutlining {
        match self.outline_loops {
            LoopsWhen::Never => LoopOutlining::Never,
            LoopsWhen::Auto => LoopOutlining::Auto,
            LoopsWhen::Always => LoopOutlining::Always,
        }
    }
}
