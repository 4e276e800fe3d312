//! How an outlined pipe's persistent kernel is launched: when the interpreter enters it instead of running a round
//! from the host ([`enters_pipe`]), its grid (every block resident at once, as its grid barrier needs; in
//! thread-block clusters on Hopper: [`PIPE_CLUSTER_VAR`]), and the most items of a round its first block
//! or cluster runs alone ([`solo_items`]). The environment knobs the measurements of `docs/optimizer.md` turned
//! live here too.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, LaunchConfig};

use crate::driver;
use crate::error::CudaError;
use crate::gpu::Gpu;
use crate::shape::FORALL_BLOCK;
use irgc_artifact::{Layout, Skew};
use irgc_runtime::HostRounds;

/// An outlined pipe's entry, loaded, with the grid it runs on.
pub(crate) struct PipeEntry {
    pub scheduled: PipeGrid,
    /// Its flat twin with that twin's grid, for a graph that is not skewed.
    pub flat: Option<PipeGrid>,
}

/// One entry of an outlined pipe and how it is launched.
#[derive(Clone)]
pub(crate) struct PipeGrid {
    pub function: CudaFunction,
    pub shape: GridShape,
}

/// The grid of an outlined pipe's persistent kernel: blocks of [`FORALL_BLOCK`] threads, all resident at once, as
/// its grid barrier needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GridShape {
    /// Blocks, in clusters of `cluster` (1: none; see [`PIPE_CLUSTER_VAR`]).
    pub grid: u32,
    pub cluster: u32,
    /// Blocks without clusters, and whether the cluster size was asked for: see [`GridShape::for_graph`].
    pub unclustered: u32,
    pub asked: bool,
}

impl GridShape {
    /// The grid and cluster size of a launch of the `scheduled` entry or the flat twin ([`scheduled`]). Clusters only
    /// speed up the rounds the first cluster runs alone, and the scheduled entry has none (on a skewed graph a small
    /// round's items are hubs: [`solo_items`]), so it launches without them by default; a size asked for is kept.
    pub fn for_graph(&self, scheduled: bool) -> (u32, u32) {
        if scheduled && !self.asked {
            (self.unclustered, 1)
        } else {
            (self.grid, self.cluster)
        }
    }
}

/// Whether a launch (or outlined pipe) takes its scheduled entry rather than its flat twin on the run's graph (the
/// context's `SKEWED` slot, [`Skew`]): on a skewed graph always, on a wide one when it `sweeps_worklist`.
pub(crate) fn scheduled(ctx: &[u64], sweeps_worklist: bool) -> bool {
    match ctx.get(Layout::SKEWED).copied() {
        Some(Skew::SKEWED) => true,
        Some(Skew::WIDE) => sweeps_worklist,
        _ => false,
    }
}

/// Whether the PTX text declares entry `name` (asked before loading a flat twin, so that a kernel without one
/// costs no failed driver call, which compute-sanitizer would report as an error).
pub(crate) fn has_entry(ptx: &str, name: &str) -> bool {
    ptx.contains(&format!(".entry {name}("))
}

/// Blocks per multiprocessor for an outlined pipe (fewer than an ordinary launch: every block takes part in
/// every grid barrier, so more blocks make each barrier slower, and the frontiers of long pipes are small).
pub(crate) const PIPE_BLOCKS_PER_SM: u32 = 2;
/// An outlined pipe is entered only when its worklist has at most this many items per thread of its grid.
const LARGE_ROUND: u64 = 4;
/// An outlined pipe is entered only after this many rounds have run as ordinary launches. A pipe that ends within
/// them (Suitor's 7–8 rounds on road and grid2k, BFS's 6 levels on kron22) never pays the persistent kernel's
/// start (the state's upload and read-back, a cooperative launch) and its smaller grid, which made those runs
/// 10–48% slower than round by round (docs/optimizer.md); a long pipe (road's 1,921 BFS levels) pays 8 ordinary
/// rounds, about 0.2 ms.
const HOST_ROUNDS_FIRST: u64 = 8;

/// An outlined pipe is not entered in a round that follows one that shrank its worklist more than this many times
/// (e.g. 1,000 items to fewer than 500). A worklist that keeps shrinking that fast ends within log2 of its size in
/// rounds (at most ~20 at the sizes [`LARGE_ROUND`] admits, a few microseconds of launches each), too few to repay
/// the persistent kernel's start: IPGC on road (9 rounds, each leaving a third of the last) was 25% slower
/// entering it after its host rounds (docs/optimizer.md). Pipes whose worklist holds its size (a BFS frontier
/// crossing a road network, a colouring's tail of priority steps) enter as before.
const FAST_SHRINK: u64 = 2;

/// An outlined pipe is not entered in a round that follows one that took longer than this from the host (its
/// launches and read-backs included). Why: the kernel saves a round a launch and a read-back, 10–20 µs, but runs its
/// sweeps on a grid sized for its barriers (a few blocks per multiprocessor), not for the work, and heavy rounds run
/// slower there. Measured on one H100 (2026-12-07, kron22, `--runs 3`, ms, off / 100 µs / 300 µs): `ipgc_data`
/// 2,236–2,259 / 1,080–1,136 / 1,129, `suitor` 8.9–9.6 / 8.3–11.6 / 7.9, `ipgc_hybrid` 15.6–15.8 / 15.3–15.4 / 15.5,
/// and `jp_ldf`, whose rounds average about 100 µs from the host and run faster in the kernel, 192.6–192.9 / 235 /
/// 199; rmatg22, urand22 and rgg22 moved by at most 4% either way (their rounds are lighter). So the line is at 300
/// µs: it halves `ipgc_data` on kron22 and costs `jp_ldf` 3%. A pipe is asked again every round, so one whose
/// rounds get light enters then.
pub const HEAVY_ROUND_US: f64 = 300.0;

/// Set to a number of microseconds in the environment, replaces [`HEAVY_ROUND_US`]; 0 turns the rule off.
pub const HEAVY_ROUND_VAR: &str = "IRGC_PIPE_HEAVY_US";

/// The longest host round (seconds) after which a pipe may enter its kernel ([`HEAVY_ROUND_US`], or
/// [`HEAVY_ROUND_VAR`]; infinite when that is 0).
pub(crate) fn heavy_round() -> f64 {
    let us = std::env::var(HEAVY_ROUND_VAR).ok().and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(HEAVY_ROUND_US);
    if us > 0.0 {
        us * 1e-6
    } else {
        f64::INFINITY
    }
}

/// Whether an outlined pipe over a worklist of `count` items, after the rounds `host` ran from the host, enters its
/// persistent kernel of `grid` blocks now, with rounds longer than `heavy` seconds kept on the host (see
/// [`LARGE_ROUND`], [`HOST_ROUNDS_FIRST`], [`FAST_SHRINK`] and [`HEAVY_ROUND_VAR`]).
pub(crate) fn enters_pipe(count: u64, host: &HostRounds, grid: u32, heavy: f64) -> bool {
    count <= u64::from(grid) * u64::from(FORALL_BLOCK) * LARGE_ROUND
        && host.rounds_done >= HOST_ROUNDS_FIRST
        && count.saturating_mul(FAST_SHRINK) >= host.previous_count
        && host.previous_seconds <= heavy
}
/// Set (to anything) in the environment, every outlined pipe enters its persistent kernel at its first round,
/// whatever its size: what the GPU tests use to run the persistent kernels of pipes that would otherwise end, or
/// switch modes, within their host rounds (`scripts/gpu-outline.sh`). Timings with it are not representative.
pub const ENTER_PIPES_AT_ONCE: &str = "IRGC_ENTER_PIPES_AT_ONCE";

/// A round of an outlined pipe with at most this many items runs on one block while the rest of the grid waits
/// (`PipeState::SOLO_ITEMS`): one item per thread, as on the whole grid, but its barriers are the block's, not a
/// grid barrier (every block's atomic on one word, then a poll). Only on a graph that is not skewed, where an
/// item's edges are few: on a skewed graph a small round's items are hubs, which the grid shares (`grid.rs`).
const SOLO_ITEMS: u64 = FORALL_BLOCK as u64;
/// Set to a number in the environment, the most items of a round run on one block instead of [`SOLO_ITEMS`]
/// (0: never): the knob the measurements of `docs/optimizer.md` turned.
pub const SOLO_ITEMS_VAR: &str = "IRGC_SOLO_ITEMS";

/// Set to a number in the environment, the most blocks of an outlined pipe's persistent grid (at least 1; the
/// resident grid when unset or not a number). For compute-sanitizer's racecheck, which did not finish the BFS
/// programs' persistent kernels on the whole resident grid in minutes (`docs/optimizer.md`, "Small rounds on one
/// block"): a smaller grid runs the same code, rounds of several blocks and solo stretches included. Timings with
/// it are not representative.
pub const PIPE_BLOCKS_VAR: &str = "IRGC_PIPE_BLOCKS";

/// The grid of an outlined pipe's persistent kernel: `resident` blocks, or fewer when `cap` (the value of
/// [`PIPE_BLOCKS_VAR`]) is a positive number.
fn capped_pipe_grid(resident: u32, cap: Option<&str>) -> u32 {
    match cap.and_then(|c| c.trim().parse::<u32>().ok()) {
        Some(c) if c > 0 => resident.min(c),
        _ => resident,
    }
}

/// Outlined pipes are launched in thread-block clusters of [`DEFAULT_PIPE_CLUSTER`] blocks on GPUs of compute
/// capability 9.0 on (PTX compiled for `sm_90`): a small round then runs on the first cluster, up to
/// [`SOLO_ITEMS`] items per block of it, its steps ended by the cluster's hardware barrier instead of the grid's
/// (`compiler/backend-ptx/src/pipe_solo.rs`). Set to a number from 1 (no clusters: block 0 runs small rounds alone)
/// to 16 in the environment, this picks the size: an error on a GPU without clusters or where a cluster of that
/// size does not fit, and no clusters for PTX without cluster rounds (nothing in it would use them).
pub const PIPE_CLUSTER_VAR: &str = "IRGC_PIPE_CLUSTER";

/// The cluster size where the GPU and the PTX have clusters and [`PIPE_CLUSTER_VAR`] is unset: on one H200, BFS and
/// SSSP on the high-diameter classes ran fastest in clusters of 16 of the sizes 1, 8 and 16 (docs/optimizer.md,
/// "Cluster rounds").
pub const DEFAULT_PIPE_CLUSTER: u32 = 16;

/// Blocks per thread-block cluster of the outlined pipes, and whether the user asked for that size (a default
/// that does not fit on the GPU falls back to no clusters; a size asked for is an error then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Clusters {
    pub blocks: u32,
    pub asked: bool,
}

/// The cluster size for a GPU of compute capability `capability` and `ptx`, from [`PIPE_CLUSTER_VAR`]'s `value`:
/// unset, [`DEFAULT_PIPE_CLUSTER`] where both have clusters and 1 otherwise; set, that size where the PTX has
/// cluster rounds and 1 where it has none, and an error naming the problem when the value is not a size from 1 to
/// 16 or the GPU has no clusters.
pub(crate) fn pipe_cluster(value: Option<&str>, capability: (i32, i32), ptx: &str) -> Result<Clusters, CudaError> {
    let has_clusters = capability.0 >= 9 && ptx.contains("%cluster_nctarank");
    let Some(value) = value else {
        let blocks = if has_clusters { DEFAULT_PIPE_CLUSTER } else { 1 };
        return Ok(Clusters { blocks, asked: false });
    };
    let bad = |why: String| Err(CudaError::Unsupported(format!("{PIPE_CLUSTER_VAR}={value}: {why}")));
    let blocks = match value.trim().parse::<u32>() {
        Ok(b @ 1..=16) => b,
        _ => return bad("expected a cluster size from 1 (no clusters) to 16 blocks".into()),
    };
    if blocks > 1 && capability.0 < 9 {
        let (major, minor) = capability;
        return bad(format!("this GPU (compute capability {major}.{minor}) has no thread-block clusters (9.0 on)"));
    }
    // PTX without cluster rounds (no outlined pipe, or compiled for a GPU before sm_90) runs its pipes, if any, as
    // it would without clusters: launching them in clusters would change nothing but the grid.
    Ok(Clusters { blocks: if has_clusters { blocks } else { 1 }, asked: true })
}

/// The most items of a round the first block (or the first cluster of `cluster` blocks) runs alone, for a pipe
/// that runs its `scheduled` entry or not (see [`scheduled`]).
pub(crate) fn solo_items(scheduled: bool, cluster: u32) -> u64 {
    if scheduled {
        return 0;
    }
    let set = std::env::var(SOLO_ITEMS_VAR).ok().and_then(|v| v.trim().parse().ok());
    set.unwrap_or(SOLO_ITEMS * u64::from(cluster))
}

/// Blocks per multiprocessor for an outlined loop, whose kernels usually sweep every node each round: as many
/// as an ordinary launch, for the memory parallelism the sweeps need.
pub(crate) const LOOP_BLOCKS_PER_SM: u32 = 8;

/// How many blocks of [`FORALL_BLOCK`] threads of `function` are resident at once on `sms` multiprocessors, at
/// most `per_sm_cap` on each (`None` when the driver cannot say): the grid of a launch whose blocks must all run
/// together (an outlined pipe's grid barrier, a sweep that waits).
pub(crate) fn resident_grid(function: &CudaFunction, sms: u32, per_sm_cap: u32) -> Option<u32> {
    let per_sm = function.occupancy_max_active_blocks_per_multiprocessor(FORALL_BLOCK, 0, None).ok()?;
    sms.checked_mul(per_sm.min(per_sm_cap))
}

/// Loads an outlined pipe's entry and sizes its grid: `None` when the PTX lacks it or no block of it fits on a
/// multiprocessor (the interpreter then runs the pipe round by round, as on a GPU without cooperative launches).
/// With clusters of more than one block, the grid is the resident clusters' blocks; when none fits, an error
/// says so if the size was asked for, and the entry runs without clusters otherwise.
pub(crate) fn pipe_entry(
    module: &Arc<CudaModule>,
    ptx: &str,
    name: &str,
    gpu: &Gpu,
    (wanted_per_sm, clusters): (u32, Clusters),
) -> Result<Option<PipeEntry>, CudaError> {
    let cap = std::env::var(PIPE_BLOCKS_VAR).ok();
    let load = |name: &str| -> Result<Option<PipeGrid>, CudaError> {
        let Ok(function) = module.load_function(name) else {
            return Ok(None);
        };
        let Some(resident) = resident_grid(&function, gpu.sms, wanted_per_sm) else {
            return Ok(None);
        };
        let cluster = clusters.blocks;
        let unclustered = capped_pipe_grid(resident, cap.as_deref());
        let asked = clusters.asked;
        if cluster > 1 {
            let cfg = LaunchConfig {
                grid_dim: (resident.max(cluster).next_multiple_of(cluster), 1, 1),
                block_dim: (FORALL_BLOCK, 1, 1),
                shared_mem_bytes: 0,
            };
            let fit = driver::resident_clusters(&gpu.stream, &function, cfg, cluster)
                .map_err(|e| CudaError::driver(format!("cannot size the clusters of pipe entry `{name}`"), e))?;
            // Whole clusters, no more blocks than the entry wants per multiprocessor.
            let whole = (fit * cluster).min(resident / cluster * cluster);
            if whole > 0 {
                // At most the blocks IRGC_PIPE_BLOCKS asks for, but one cluster at least.
                let grid = (capped_pipe_grid(whole, cap.as_deref()) / cluster).max(1) * cluster;
                return Ok(Some(PipeGrid { function, shape: GridShape { grid, cluster, unclustered, asked } }));
            }
            if clusters.asked {
                return Err(CudaError::Unsupported(format!(
                    "{PIPE_CLUSTER_VAR}={cluster}: no cluster of {cluster} blocks of pipe entry `{name}` fits on this \
                     GPU at once ({fit} clusters resident, {resident} blocks); try a smaller size"
                )));
            }
        }
        Ok((unclustered > 0)
            .then_some(PipeGrid { function, shape: GridShape { grid: unclustered, cluster: 1, unclustered, asked } }))
    };
    let Some(scheduled) = load(name)? else {
        return Ok(None);
    };
    let flat = irgc_artifact::flat_entry(name);
    let flat = if has_entry(ptx, &flat) { load(&flat)? } else { None };
    Ok(Some(PipeEntry { scheduled, flat }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_grid_is_capped_only_by_a_positive_number() {
        assert_eq!(capped_pipe_grid(264, None), 264);
        assert_eq!(capped_pipe_grid(264, Some("4")), 4);
        assert_eq!(capped_pipe_grid(264, Some(" 2 ")), 2);
        assert_eq!(capped_pipe_grid(264, Some("1000")), 264, "never more than are resident");
        assert_eq!(capped_pipe_grid(264, Some("0")), 264);
        assert_eq!(capped_pipe_grid(264, Some("many")), 264);
        assert_eq!(capped_pipe_grid(0, Some("4")), 0, "nothing fits: still nothing");
    }

    #[test]
    fn a_pipe_cluster_is_asked_for_only_where_the_gpu_and_the_ptx_have_clusters() {
        let (hopper, ampere) = ((9, 0), (8, 0));
        let ptx90 = "mov.u32 %r1, %cluster_nctarank;";
        let default = |blocks| Clusters { blocks, asked: false };
        let asked = |blocks| Clusters { blocks, asked: true };
        assert_eq!(pipe_cluster(None, hopper, ptx90).unwrap(), default(DEFAULT_PIPE_CLUSTER), "unset: the default");
        assert_eq!(pipe_cluster(None, ampere, ptx90).unwrap(), default(1), "unset, a GPU without clusters: none");
        assert_eq!(pipe_cluster(None, hopper, "").unwrap(), default(1), "unset, PTX without clusters: none");
        assert_eq!(pipe_cluster(Some("1"), ampere, "").unwrap(), asked(1), "1: no clusters, on any GPU");
        assert_eq!(pipe_cluster(Some(" 8 "), hopper, ptx90).unwrap(), asked(8));
        assert_eq!(pipe_cluster(Some("16"), hopper, ptx90).unwrap(), asked(16));
        assert_eq!(pipe_cluster(Some("16"), hopper, "").unwrap(), asked(1), "PTX without cluster rounds: none");
        for (value, cc, ptx, why) in [
            ("0", hopper, ptx90, "from 1 (no clusters) to 16"),
            ("17", hopper, ptx90, "from 1 (no clusters) to 16"),
            ("eight", hopper, ptx90, "from 1 (no clusters) to 16"),
            ("8", ampere, ptx90, "compute capability 8.0) has no thread-block clusters"),
        ] {
            let e = pipe_cluster(Some(value), cc, ptx).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{PIPE_CLUSTER_VAR}={value}: ")), "{e}");
            assert!(e.contains(why), "{value}: {e}");
        }
    }

    #[test]
    fn a_skewed_graph_runs_without_clusters_unless_they_were_asked_for() {
        let default = GridShape { grid: 1056, cluster: 16, unclustered: 1064, asked: false };
        assert_eq!(default.for_graph(false), (1056, 16));
        assert_eq!(default.for_graph(true), (1064, 1), "no solo rounds on a skewed graph: no clusters");
        let asked = GridShape { asked: true, ..default };
        assert_eq!(asked.for_graph(true), (1056, 16));
        let none = GridShape { grid: 1064, cluster: 1, unclustered: 1064, asked: false };
        assert_eq!(none.for_graph(false), (1064, 1));
    }

    #[test]
    fn a_cluster_runs_as_many_items_alone_as_its_blocks_hold() {
        if std::env::var_os(SOLO_ITEMS_VAR).is_none() {
            assert_eq!(solo_items(false, 1), SOLO_ITEMS);
            assert_eq!(solo_items(false, 8), 8 * SOLO_ITEMS);
        }
        assert_eq!(solo_items(true, 8), 0, "a skewed graph's small rounds are hubs: the grid shares them");
    }

    #[test]
    fn a_wide_graph_takes_the_schedules_only_where_a_worklist_is_swept() {
        let ctx = |v: u64| {
            let mut ctx = vec![0u64; Layout::SKEWED + 1];
            ctx[Layout::SKEWED] = v;
            ctx
        };
        for sweeps in [false, true] {
            assert!(!scheduled(&ctx(Skew::EVEN), sweeps));
            assert!(scheduled(&ctx(Skew::SKEWED), sweeps));
            assert_eq!(scheduled(&ctx(Skew::WIDE), sweeps), sweeps);
        }
    }

    /// The loops' limit, the first to try for pipes.
    const HEAVY_ROUND: f64 = irgc_runtime::loop_gate::HEAVY_ROUND;

    /// A pipe `rounds_done` rounds in, the last of `previous` items, which took 20 µs.
    fn at(previous: u64, rounds_done: u64) -> HostRounds {
        HostRounds { rounds_done, previous_count: previous, previous_seconds: 20e-6 }
    }

    #[test]
    fn a_pipe_enters_its_kernel_only_when_small_and_after_its_first_rounds() {
        let grid = 264; // 132 multiprocessors, 2 blocks each
        let small = 1_000;
        assert!(!enters_pipe(small, &at(0, 0), grid, HEAVY_ROUND), "a short pipe's first rounds run from the host");
        assert!(!enters_pipe(small, &at(small, HOST_ROUNDS_FIRST - 1), grid, HEAVY_ROUND));
        assert!(enters_pipe(small, &at(small, HOST_ROUNDS_FIRST), grid, HEAVY_ROUND));
        let large = u64::from(grid) * u64::from(FORALL_BLOCK) * LARGE_ROUND + 1;
        assert!(!enters_pipe(large, &at(large, 100), grid, HEAVY_ROUND), "a large round runs from the host");
    }

    #[test]
    fn a_pipe_whose_worklist_shrinks_fast_stays_on_the_host() {
        let grid = 264;
        let after = HOST_ROUNDS_FIRST;
        let enters = |count, previous| enters_pipe(count, &at(previous, after), grid, HEAVY_ROUND);
        assert!(!enters(400, 1_000), "less than half the last round's items: about to end");
        assert!(enters(500, 1_000), "half of them: may go on for long");
        assert!(enters(1_200, 1_000), "a growing frontier enters");
        assert!(!enters(1, 3) && enters(2, 3));
    }

    #[test]
    fn a_pipe_whose_last_round_was_heavy_stays_on_the_host() {
        let grid = 264;
        let heavy = HostRounds { previous_seconds: 2e-3, ..at(600, 40) };
        assert!(!enters_pipe(584, &heavy, grid, HEAVY_ROUND), "2 ms rounds over hubs: the launch is nothing to save");
        assert!(enters_pipe(584, &heavy, grid, f64::INFINITY), "the rule off");
        let light = HostRounds { previous_seconds: HEAVY_ROUND, ..heavy };
        assert!(enters_pipe(584, &light, grid, HEAVY_ROUND), "at the limit it enters");
    }
}
