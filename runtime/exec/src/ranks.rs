//! Multi-process runs: one process per device ("rank"), the same partition-and-merge scheme as
//! [`crate::devices`], with the merge's arrays moved between the processes by a [`Link`]: NCCL between GPUs
//! (`irgc_cuda::NcclLink`), or local sockets through the host ([`SocketLink`], any device; what CI tests without a
//! GPU). Nothing here assumes the ranks share a host: a rank needs its part of the graph and the [`Link`], which
//! finds the others through one join file (for NCCL, the unique id rank 0 writes there; `docs/distributed.md`).
//!
//! Every rank takes its part of the edges (`Csr::part`), sets up its device, and waits at a barrier, so that all
//! ranks start computing together and rank 0's total is the run's. Then it runs the plan and takes part in the
//! ⌈log₂ N⌉ merge rounds: in round `r` (stride `s = 2^r`), a rank that is a multiple of `2s` receives rank
//! `rank + s`'s `from` array into its `into` array and runs the program's merge block; a rank `≡ s (mod 2s)`
//! sends its `from` array to `rank − s` and is done. Rank 0 ends with the answer, as device 0 does in one process.

mod socket;

use std::time::{Duration, Instant};

pub use socket::SocketLink;

use crate::device::Device;
use crate::devices::{compute_part, merge_rounds, set_up_part, DeviceRun};
use crate::error::RunError;
use crate::memory::{Memory, SetupParts};
use crate::output::{self, OutputData};
use crate::stats::Stats;
use crate::DeviceRequest;

/// How one rank reaches the others: a barrier, and point-to-point moves of one array (its first `len` elements of
/// `elem_size` bytes). A `send` may return before the receiver has the data only if the buffer may be reused at
/// once (NCCL's sends are ordered on the device's stream; the sockets copy out first).
pub trait Link<D: Device> {
    /// Waits until every rank has reached its barrier.
    fn barrier(&mut self, dev: &mut D) -> Result<(), RunError>;
    /// Sends `buf` to rank `to`.
    fn send(&mut self, dev: &mut D, buf: &D::Buffer, elem_size: usize, len: u64, to: usize) -> Result<(), RunError>;
    /// Receives into `buf` what rank `from` sends, and waits for it to arrive.
    fn recv(
        &mut self,
        dev: &mut D,
        buf: &mut D::Buffer,
        elem_size: usize,
        len: u64,
        from: usize,
    ) -> Result<(), RunError>;
    /// What the link is, for the summary ("NCCL 2.27.3", "local sockets").
    fn describe(&self) -> String;
}

/// Where a rank stands among the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rank {
    pub rank: usize,
    pub ranks: usize,
}

impl Rank {
    /// Checks `rank < ranks` (and at least one rank), for options that come from a user.
    pub fn new(rank: usize, ranks: usize) -> Result<Rank, RunError> {
        if ranks == 0 || rank >= ranks {
            return Err(RunError::ranks(format!("rank {rank} of {ranks}: ranks are numbered 0..{ranks}")));
        }
        Ok(Rank { rank, ranks })
    }

    /// What this rank does in each merge round, in order ([`merge_rounds`]): receive from its partner in each
    /// round where it receives, until the round where it sends.
    pub fn steps(self) -> Vec<Step> {
        let mut steps = Vec::new();
        for round in merge_rounds(self.ranks) {
            if let Some(&(_, from)) = round.iter().find(|&&(to, _)| to == self.rank) {
                steps.push(Step::Receive { from });
            } else if let Some(&(to, _)) = round.iter().find(|&&(_, from)| from == self.rank) {
                steps.push(Step::Send { to });
                break;
            }
        }
        steps
    }

    /// Merge rounds of the whole run: ⌈log₂ ranks⌉.
    pub fn rounds(self) -> u32 {
        merge_rounds(self.ranks).len() as u32
    }
}

/// One merge step of a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Receive the `from` array of rank `from` and run the merge block.
    Receive { from: usize },
    /// Send this rank's `from` array to rank `to`; the rank is then done.
    Send { to: usize },
}

/// What rank 0 ends with: the answer.
pub struct RankResult<B> {
    pub outputs: Vec<OutputData>,
    pub memory: Memory<B>,
    pub stats: Stats,
    pub readback_time: Duration,
}

/// A finished rank.
pub struct RankExecution<B> {
    pub rank: Rank,
    /// This rank's part and plan.
    pub part: DeviceRun,
    pub setup_parts: SetupParts,
    /// Waiting at the barrier for the other ranks' set-up.
    pub barrier_time: Duration,
    /// From the end of this rank's plan to the end of its last merge step: waiting for the partners, the moves,
    /// and the merge blocks this rank ran.
    pub merge_time: Duration,
    /// Merges received (and merge blocks run) by this rank.
    pub merges_received: u32,
    pub merge_launches: u64,
    /// Where this rank sent its array (every rank but 0 sends once).
    pub sent_to: Option<usize>,
    /// From the barrier to the end of this rank's merges: on rank 0, the run's compute time.
    pub total_time: Duration,
    /// Rank 0's outputs and memory; `None` on the other ranks.
    pub result: Option<RankResult<B>>,
}

/// Runs the request's program as rank `rank` of a multi-process run: this rank's part of the graph on `dev`, the
/// plan, and the merge steps through `link` (see the module documentation). A program without a `merge` is
/// refused.
pub fn run_rank<D: Device, L: Link<D>>(
    dev: &mut D,
    link: &mut L,
    rank: Rank,
    req: DeviceRequest<'_>,
) -> Result<RankExecution<D::Buffer>, RunError> {
    let DeviceRequest { artifact, graph, graph_name, params, ref options } = req;
    crate::check_params(artifact, params)?;
    let merge = crate::devices::merge_of(artifact)?;
    let part = graph.part(rank.rank, rank.ranks, options.partition);
    let (mut machine, setup_time) = set_up_part(dev, artifact, &part, graph_name, params, options)?;
    let setup_parts = machine.mem.setup;
    let waited = Instant::now();
    link.barrier(machine.dev)?;
    let barrier_time = waited.elapsed();
    let start = Instant::now();
    let part = compute_part(&mut machine, part.num_edges(), setup_time, options)?;
    let merged = Instant::now();
    let (mut merges_received, mut sent_to) = (0, None);
    let before = machine.launches;
    for step in rank.steps() {
        match step {
            Step::Receive { from } => {
                let into = machine
                    .mem
                    .globals
                    .get_mut(merge.into)
                    .ok_or_else(|| RunError::plan("merge into a missing array"))?;
                let (elem, len) = (into.elem.size(), into.len());
                link.recv(machine.dev, &mut into.buf, elem, len, from)?;
                machine.dev.begin_compute(options.collect_stats)?;
                machine.run_block(&merge.body)?;
                machine.dev.end_compute()?;
                merges_received += 1;
            }
            Step::Send { to } => {
                let from =
                    machine.mem.globals.get(merge.from).ok_or_else(|| RunError::plan("merge of a missing array"))?;
                link.send(machine.dev, &from.buf, from.elem.size(), from.len(), to)?;
                sent_to = Some(to);
            }
        }
    }
    let merge_time = merged.elapsed();
    let total_time = start.elapsed();
    let merge_launches = machine.launches - before;
    let result = if rank.rank == 0 {
        let readback = Instant::now();
        let outputs = output::read_outputs(artifact, &*machine.dev, &machine.mem)?;
        let readback_time = readback.elapsed();
        Some(RankResult { outputs, memory: machine.mem, stats: machine.stats, readback_time })
    } else {
        None
    };
    Ok(RankExecution {
        rank,
        part,
        setup_parts,
        barrier_time,
        merge_time,
        merges_received,
        merge_launches,
        sent_to,
        total_time,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rank but 0 sends exactly once, every send has a matching receive in the same round, and rank 0
    /// receives once per round.
    #[test]
    fn merge_steps_pair_up_and_end_at_rank_zero() {
        for ranks in 1..=13 {
            let all: Vec<Vec<Step>> = (0..ranks).map(|r| Rank::new(r, ranks).unwrap().steps()).collect();
            let rounds = Rank::new(0, ranks).unwrap().rounds();
            assert_eq!(all[0].len() as u32, rounds, "{ranks} ranks");
            assert!(all[0].iter().all(|s| matches!(s, Step::Receive { .. })));
            for (r, steps) in all.iter().enumerate().skip(1) {
                let sends: Vec<usize> =
                    steps.iter().filter_map(|s| if let Step::Send { to } = s { Some(*to) } else { None }).collect();
                assert_eq!(sends.len(), 1, "rank {r} of {ranks}");
                assert!(matches!(steps.last(), Some(Step::Send { .. })), "rank {r} sends last");
                let to = sends[0];
                assert!(all[to].contains(&Step::Receive { from: r }), "rank {to} receives from {r}");
            }
        }
        assert!(Rank::new(2, 2).is_err());
        assert!(Rank::new(0, 0).is_err());
    }
}
