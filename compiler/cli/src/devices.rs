//! The multi-device options that `irgc run` and `irgc bench` share (`--devices`, `--gpus`, `--one-after-another`,
//! `--partition`, `--comm`; seed 004's scheme, `irgc_runtime::devices`), the multi-process ones of `irgc run`
//! (`--rank`, `--ranks`, `--join`: `irgc_runtime::ranks`), and the checks that make them fit the backend.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use irgc_driver::execute::Comm;
use irgc_driver::ranks::{RankLink, RankSpec};

#[derive(Args, Clone, Debug)]
pub struct DeviceArgs {
    /// Run on N devices: the edges split into N contiguous parts, the plan run on each, the results merged
    /// pairwise by the program's `merge` block (seed 004's multi-GPU scheme). With --backend cuda, GPUs 0..N-1
    /// run their parts at once and merge GPU to GPU; CPU devices run one after another. Compute time includes
    /// the merges (`bench` shows `cuda×N` or `cpu×N` as the backend).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub devices: u32,
    /// With --backend cuda: the GPUs the devices run on, by ordinal, e.g. `--gpus 2,3` (sets the device count).
    /// A GPU named twice holds two devices (`--gpus 0,0` tries the multi-GPU path on a machine with one GPU).
    #[arg(long, value_name = "LIST", value_delimiter = ',', num_args = 1..)]
    pub gpus: Vec<usize>,
    /// With several GPU devices: run their parts one after another instead of at once, so that each part's
    /// compute time is its own. With `--gpus 0,0` this measures a two-GPU run's parts on one GPU.
    #[arg(long)]
    pub one_after_another: bool,
    /// How --devices cuts the edges into contiguous parts: equal edge counts, or equal counts of the edges that
    /// lead to a smaller node (what ecl_cc, rem and groute do work on; better where hubs have small ids).
    #[arg(long, value_enum, default_value = "edges")]
    pub partition: PartitionArg,
    /// How the devices exchange the merge's arrays. `auto`: in one process CUDA peer copies (they measured faster
    /// than NCCL there); between ranks NCCL on GPUs (sockets where NCCL cannot be loaded) and sockets on the CPU.
    /// `peer`: CUDA peer copies (one process). `nccl`: NCCL, or an error. `sockets`: Unix sockets beside --join,
    /// through host memory (ranks of one host, either backend).
    #[arg(long, value_enum, default_value = "auto")]
    pub comm: CommArg,
    /// Run as rank R of a multi-process run of --ranks processes, one device each (one per GPU: the same path
    /// that spans hosts). Each rank runs part R of the edges, then its merge steps; rank 0 writes the outputs and
    /// checks them. Start every rank with the same program, graph and options, e.g.
    /// `for r in 0 1; do irgc run P --graph G --backend cuda --ranks 2 --rank $r --join /tmp/j & done; wait`.
    #[arg(long, value_name = "R", requires_all = ["ranks", "join"])]
    pub rank: Option<u32>,
    /// The number of ranks (processes) of a multi-process run.
    #[arg(long, value_name = "N", requires_all = ["rank", "join"],
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub ranks: Option<u32>,
    /// The file the ranks meet at: rank 0 writes the NCCL unique id there (the file must not exist yet), the
    /// others wait for it; with --comm sockets the ranks' sockets go beside it. Across hosts: a path every rank
    /// can read (a shared file system).
    #[arg(long, value_name = "FILE", requires_all = ["rank", "ranks"])]
    pub join: Option<PathBuf>,
    /// How long a rank waits for the others (to join, to send their arrays) before it stops with an error.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, requires = "rank")]
    pub rank_timeout: u64,
}

/// `--comm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CommArg {
    Auto,
    Peer,
    Nccl,
    Sockets,
}

/// Where `--devices N` cuts the edge order (`irgc_graph::Partition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PartitionArg {
    /// Equal edge counts (seed 004's partition).
    Edges,
    /// Equal counts of the edges that lead to a smaller node: the ones union-find CC programs (ecl_cc, rem,
    /// groute) hook, each undirected edge once.
    LowerEdges,
}

impl DeviceArgs {
    /// Refuses options that do not apply to the backend (`cuda` or the CPU) or contradict each other.
    pub fn check(&self, cuda: bool) -> Result<()> {
        if !cuda && !self.gpus.is_empty() {
            bail!("--gpus applies to --backend cuda only");
        }
        if !cuda && self.one_after_another {
            bail!("--one-after-another applies to --backend cuda (CPU devices always run one after another)");
        }
        if !self.gpus.is_empty() && self.devices > 1 && self.gpus.len() != self.devices as usize {
            bail!("--devices {} but --gpus names {} GPU(s): give one of them", self.devices, self.gpus.len());
        }
        if !cuda && matches!(self.comm, CommArg::Peer | CommArg::Nccl) {
            bail!("--comm {} moves arrays between GPUs: use it with --backend cuda", self.comm_name());
        }
        match (self.rank, self.ranks) {
            (Some(rank), Some(ranks)) => {
                if rank >= ranks {
                    bail!("--rank {rank} of --ranks {ranks}: ranks are numbered 0 to {}", ranks - 1);
                }
                if self.devices > 1 {
                    bail!("--ranks runs one device per process: leave out --devices (start one process per device)");
                }
                if self.gpus.len() > 1 {
                    bail!("--gpus names {} GPUs, but a rank runs on one: name its GPU alone", self.gpus.len());
                }
                if self.one_after_another {
                    bail!("--one-after-another applies to one process running several devices, not to --ranks");
                }
                if self.comm == CommArg::Peer {
                    bail!("--comm peer copies between GPUs of one process; ranks use --comm nccl or sockets");
                }
            }
            _ if self.comm == CommArg::Sockets => {
                bail!("--comm sockets joins the ranks of a multi-process run: give --rank, --ranks and --join")
            }
            _ => {}
        }
        Ok(())
    }

    fn comm_name(&self) -> String {
        self.comm.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    }

    /// How a one-process multi-GPU run's merges move arrays.
    pub fn comm(&self) -> Comm {
        match self.comm {
            CommArg::Peer => Comm::Peer,
            CommArg::Nccl => Comm::Nccl,
            CommArg::Auto | CommArg::Sockets => Comm::Auto,
        }
    }

    /// Whether the run may use NCCL (so its library must be findable before anything loads it).
    pub fn may_use_nccl(&self, cuda: bool) -> bool {
        cuda && match self.comm {
            CommArg::Nccl => true,
            CommArg::Auto => self.rank.is_some(),
            CommArg::Peer | CommArg::Sockets => false,
        }
    }

    /// This process's rank, if it is one of a multi-process run; on `cuda`, `auto` takes NCCL where it loads and
    /// sockets otherwise (with the note it returns).
    pub fn rank_spec(&self, cuda: bool) -> Result<Option<(RankSpec, Option<String>)>> {
        let (Some(rank), Some(ranks), Some(join)) = (self.rank, self.ranks, &self.join) else { return Ok(None) };
        let rank = irgc_runtime::ranks::Rank::new(rank as usize, ranks as usize)?;
        let (link, note) = match self.comm {
            CommArg::Nccl => (RankLink::Nccl, None),
            CommArg::Auto if cuda && irgc_cuda::nccl_loadable() => (RankLink::Nccl, None),
            CommArg::Auto if cuda => (
                RankLink::Sockets,
                Some(
                    "NCCL cannot be loaded (no libnccl.so found); the ranks exchange arrays through local sockets"
                        .to_string(),
                ),
            ),
            _ => (RankLink::Sockets, None),
        };
        let wait = Duration::from_secs(self.rank_timeout);
        Ok(Some((RankSpec { rank, join: join.clone(), link, wait }, note)))
    }

    /// The GPUs a CUDA run's devices use: `--gpus`, else 0..`--devices` (a rank: its own number).
    pub fn gpu_ordinals(&self) -> Vec<usize> {
        if let (Some(rank), true) = (self.rank, self.gpus.is_empty()) {
            return vec![rank as usize];
        }
        if self.gpus.is_empty() {
            (0..self.devices as usize).collect()
        } else {
            self.gpus.clone()
        }
    }

    /// How many CPU devices a CPU run uses.
    pub fn cpu_devices(&self) -> usize {
        self.devices as usize
    }

    pub fn partition(&self) -> irgc_graph::Partition {
        match self.partition {
            PartitionArg::Edges => irgc_graph::Partition::Edges,
            PartitionArg::LowerEdges => irgc_graph::Partition::LowerEdges,
        }
    }
}
