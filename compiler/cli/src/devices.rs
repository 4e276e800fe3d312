//! The multi-device options that `irgc run` and `irgc bench` share (`--devices`, `--gpus`, `--one-after-another`,
//! `--partition`; seed 004's scheme, `irgc_runtime::devices`), and the checks that make them fit the backend.

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};

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
        Ok(())
    }

    /// The GPUs a CUDA run's devices use: `--gpus`, else 0..`--devices`.
    pub fn gpu_ordinals(&self) -> Vec<usize> {
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
