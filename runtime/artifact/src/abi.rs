//! The kernel ABI: how generated code and the runtime meet.
//!
//! Every kernel is entered with a pointer to a table of `u64` slots (the context), and processes the iterations
//! `lo..hi` of its parallel space, linearised (see [`Space`](crate::Space)). The slot layout ([`Layout`]) is:
//!
//! | slots | meaning |
//! |---|---|
//! | 0 | `row_start`: pointer to `num_nodes + 1` `u64` offsets |
//! | 1 | `col`: pointer to `num_edges` `u32` destinations |
//! | 2 | `weights`: pointer to `num_edges` weights of the graph's weight type (0 if unweighted) |
//! | 3 | `src`: pointer to `num_edges` `u32` sources (0 unless [`Artifact::needs_sources`]) |
//! | 4, 5 | `num_nodes`, `num_edges` |
//! | per global g: 3 slots | data pointer, `dim0`, `dim1` (elements per dimension; node/edge arrays: length, 1) |
//! | per worklist w: 9 slots | see [`WorklistSlot`] |
//! | per param p: 1 slot | the value's bits (zero-extended; floats as IEEE bits; bool as 0/1) |
//! | per kernel argument i: 1 slot | the value's bits, as for params |
//! | 1 slot | the reduction result: written by the kernel (see below) |
//!
//! Element storage: `bool` is one byte (0/1), `node`/`u32`/`i32`/`f32` four bytes, `edge`/`u64`/`i64`/`f64`
//! eight, little-endian, dense arrays row-major.
//!
//! Worklist pushes: `i = atomic_add(*out_count, 1)`; if `i < out_capacity` store the item at `out_items[i]`,
//! else set `*overflow = 1` (the runtime then fails the run with a clear message). Retries go the same way to the
//! retry buffer, sharing its capacity and overflow flag.
//!
//! Push counters come in pairs that alternate, so no launch or copy is spent resetting them: a kernel that pushes
//! to a worklist counts its pushes in `*out_count`, and its first iteration (index 0 of its space; every launch
//! has one) zeroes `*spent_count`, the other counter of the pair, which holds the previous pushing kernel's count
//! and which the runtime has already read. After the launch the runtime reads `*out_count` and, if the kernel ran,
//! swaps the pair's roles, so the next pushing kernel counts from zero. (GPU kernels may push before the zeroing
//! thread runs: that is harmless, as nobody pushes into `*spent_count`.)
//!
//! Reductions: a CPU kernel entry combines its chunk's `reduce` values, starting from the identity, and returns
//! the partial result's bits; the runtime combines partials ([`ReduceOp`](irgc_scalar::ReduceOp)).

use crate::auto::AutoHybrid;
use crate::program::Artifact;

/// The state area of an outlined pipe's entry, `u64` words: `.entry irgc_pipe_<i>(ctx, state)`.
///
/// The kernel runs on a grid whose blocks are all resident at once (a cooperative launch), starting from the
/// context's worklist slots (`InItems` holds the current items, `OutItems` the other buffer) and the counts below.
/// Each round it reads the current count; it leaves when the count is 0 or a loop breaks (status
/// [`PipeState::DONE`]), when a push overflowed ([`PipeState::OVERFLOW`]) or when `MAX_ROUNDS` rounds (`MAX_LAUNCHES` launches) ran
/// ([`PipeState::LIMIT`]). Each reducing launch `j` of a round combines into one of its three words at
/// `reduction(locals, j)` (`j` counting launch sites in pre-order, branches included), rotating by round, the
/// kernel itself writing every site's identity a round ahead. Push counts rotate through three words: a pushing pass reads the current count, pushes
/// into the next and zeroes the third, which every thread finished reading before the previous grid barrier. The
/// thread with global index 0 writes `ROUNDS`, `LAUNCHES`, `STATUS` and the final host locals before the kernel ends.
pub struct PipeState;

impl PipeState {
    /// The grid barrier's word: arrivals in the low bits, the top bit flipped by each barrier's last arrival;
    /// the runtime writes 0. Words 1 to 15 are unused, so that this word, which every block's thread 0 polls
    /// while it waits, has its 128-byte line to itself and the polling does not slow the reads of the counts.
    pub const BARRIER_COUNT: usize = 0;
    /// In: a round of at most this many items runs on block 0 alone, the other blocks waiting at one grid
    /// barrier until the rounds grow again or the loop ends (0: never). Such a round's barriers are block
    /// barriers, not grid barriers; block 0 writes its registers to the [`PipeState::spill`] words before it lets
    /// the others go.
    pub const SOLO_ITEMS: usize = 16;
    /// In: the most rounds the kernel may run.
    pub const MAX_ROUNDS: usize = 17;
    /// Out: the rounds it ran.
    pub const ROUNDS: usize = 18;
    /// Out: why it stopped.
    pub const STATUS: usize = 19;
    /// In: three rotating push counts; the first holds the worklist's current count, the second 0.
    pub const COUNTS: usize = 20;
    /// Out: the kernel launches it made (rounds may differ: the branches of an `if` or `hybrid` launch different
    /// kernels).
    pub const LAUNCHES: usize = 23;
    /// In: the most kernel launches the kernel may make (a retry relaunch counts, as on the host); it stops with
    /// [`PipeState::LIMIT`] before one more.
    pub const MAX_LAUNCHES: usize = 24;
    /// In: the addresses of the pipe's worklist's two retry buffers (0 without retries). A retrying launch retries
    /// into one; the step is run again over those items, retrying into the other, until a pass retries nothing.
    pub const RETRY_BUFFERS: usize = 25;
    /// In: three rotating retry counts, all 0 (rotating as the push counts do).
    pub const RETRY_COUNTS: usize = 27;
    /// In: the address of a zeroed buffer of per-round records (0: record nothing), `RECORD_ROUNDS + 1` records
    /// of [`PipeState::record_words`] words each; see [`PipeState::RECORD_SIZE`].
    pub const RECORDS: usize = 30;
    /// In: the most rounds the buffer has records for.
    pub const RECORD_ROUNDS: usize = 31;
    /// In and out: the plan's host locals, as bits.
    pub const LOCALS: usize = 32;

    /// Word `RECORD_SIZE` of record `r`: the pipe's worklist count when round `r` (from 0) started, as thread 0
    /// read it at the round's head (0 in an outlined loop, which has no worklist). The kernel's end writes one
    /// record more, so the last round ends where the next record begins. (Words `RECORD_TIME`, `RECORD_HYBRID`,
    /// `RECORD_REDUCED` and `RECORD_ABOVE` follow.)
    pub const RECORD_SIZE: usize = 0;
    /// `%globaltimer` (ns) when thread 0 started the round, after the previous round's last grid barrier.
    pub const RECORD_TIME: usize = 1;
    /// Which `hybrid` statements of the pipe ran in the round (bit `2k` for the pipe's `k`-th, in statement
    /// order) and which of those ran `dense` (bit `2k + 1`); bit [`PipeState::RECORD_REDUCED_BIT`] says that a
    /// reducing launch ran.
    pub const RECORD_HYBRID: usize = 2;
    /// The result of the round's first reducing launch as an `f64` (`true` is 1), when bit
    /// [`PipeState::RECORD_REDUCED_BIT`] of word `RECORD_HYBRID` is set: what `--stats` shows per launch of a
    /// loop run from the host (its convergence trace).
    pub const RECORD_REDUCED: usize = 3;
    /// `hybrid` `k`'s threshold × nodes (`f64` bits) in word `RECORD_ABOVE + k`.
    pub const RECORD_ABOVE: usize = 4;
    /// The bit of word `RECORD_HYBRID` that says word `RECORD_REDUCED` holds a value (above the bits of the
    /// [`PipeState::RECORDED_HYBRIDS`] `hybrid`s recorded).
    pub const RECORD_REDUCED_BIT: u64 = 1 << 63;
    /// The most `hybrid` statements of a pipe whose choices a record keeps (the first ones in statement order; a
    /// round's later ones show as not run).
    pub const RECORDED_HYBRIDS: usize = 31;

    /// The worklist ran empty.
    pub const DONE: u64 = 0;
    /// `MAX_ROUNDS` rounds ran (or `MAX_LAUNCHES` launches) and the worklist is not empty.
    pub const LIMIT: u64 = 1;
    /// A push found the buffer full.
    pub const OVERFLOW: u64 = 2;

    /// Words of the state area of a plan with `locals` host locals and pipes of at most `reductions` reducing
    /// launches and `autos` `hybrid ... above auto` statements per round.
    pub fn words(locals: usize, reductions: usize, autos: usize) -> usize {
        Self::spill(locals, reductions, autos) + Self::SPILL_WORDS
    }

    /// The first of the [`PipeState::SPILL_WORDS`] words where block 0 leaves its registers (rounds, launches,
    /// the worklist's and retries' rotation) when it hands a loop run alone back to the grid (see
    /// [`PipeState::SOLO_ITEMS`]); the host locals go to their own words. Zero from the host.
    pub fn spill(locals: usize, reductions: usize, autos: usize) -> usize {
        Self::LOCALS + locals + 3 * reductions + 2 * AutoHybrid::WORDS * autos
    }

    /// Words of the spill area: a flag that the loop ended while block 0 ran alone, then its registers.
    pub const SPILL_WORDS: usize = 12;

    /// The first word of copy `slot` (0 or 1) of the estimates of the pipe's `k`-th `hybrid ... above auto`
    /// ([`AutoHybrid::to_words`]). In: both copies hold the host's estimates. Round `r` (from 0) decides from copy
    /// `r % 2` and thread 0 writes its new estimates there after the round's launches (so after every thread has
    /// decided, and a round's grid barriers before anyone reads them, two rounds later). Out: copy 0 holds the
    /// latest, written by thread 0 when the kernel ends.
    pub fn auto_words(locals: usize, reductions: usize, k: usize, slot: usize) -> usize {
        Self::LOCALS + locals + 3 * reductions + AutoHybrid::WORDS * (2 * k + slot)
    }

    /// Words of a per-round record of a pipe with `hybrids` `hybrid` statements.
    pub fn record_words(hybrids: usize) -> usize {
        Self::RECORD_ABOVE + hybrids
    }

    /// The first of the three words of reducing launch `j`.
    pub fn reduction(locals: usize, j: usize) -> usize {
        Self::LOCALS + locals + 3 * j
    }
}

/// The 9 slots of a worklist in the kernel context, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorklistSlot {
    /// Pointer to the current items.
    InItems = 0,
    /// Number of current items.
    InCount = 1,
    /// Pointer to the buffer pushes go to.
    OutItems = 2,
    /// Pointer to the `u64` push counter.
    OutCount = 3,
    /// Capacity of the push buffer, in items (the retry buffer has the same capacity).
    Capacity = 4,
    /// Pointer to the retry buffer.
    RetryItems = 5,
    /// Pointer to the `u64` retry counter.
    RetryCount = 6,
    /// Pointer to a `u64` set to 1 when a push or retry found its buffer full.
    Overflow = 7,
    /// Pointer to the other push counter of the pair: zeroed by the first iteration of a pushing kernel.
    SpentCount = 8,
}

impl WorklistSlot {
    /// Slots per worklist.
    pub const COUNT: usize = 9;
}

/// The name of PTX entry `name`'s flat twin: the same kernel (or outlined pipe) with every nested-parallelism
/// schedule run in its thread, which the runtime launches instead on a graph that is not [`skewed`]. The
/// scheduled forms cost registers even when the run-time gate skips them (a 256-thread `sssp_harish` block fell
/// from 8 to 6 resident per multiprocessor); the twin has none of them. `$` is a PTX identifier character that no
/// IR name has. Only entries with a scheduled loop have a twin.
pub fn flat_entry(name: &str) -> String {
    format!("{name}$flat")
}

/// The name of PTX entry `name`'s rolled twin: the same kernel with the loops of its own body that the `unroll`
/// pass marked running one iteration a turn. Unrolling keeps more loads in flight but takes registers, and with
/// them resident blocks: `pagerank_pull_f32`'s `pull` takes 48 registers unrolled, 32 rolled, and on rmatg22
/// (where few ranges are long enough to run unrolled) the lost occupancy made it 21% slower on an H100, while on
/// kron22 unrolling halves its time. Which one wins depends on the graph, so the runtime times both (on a skewed
/// graph, two launches of equal size) and keeps the faster. Only kernels with an unrolled loop of their own have
/// a twin.
pub fn rolled_entry(name: &str) -> String {
    format!("{name}$rolled")
}

/// Whether a graph of `num_nodes` nodes, `num_edges` edges and largest out-degree `max_degree` is skewed enough
/// for the nested-parallelism schedules: some node has at least 32 edges (a warp's worth) and at least 4 times the
/// mean degree. On graphs of even degrees (road networks, grids, uniform random graphs) sharing a range cost
/// more than it saved when this was set: measured on an H100, up to 35% slower (`docs/optimizer.md`). On the wide
/// even graphs (rgg22: the worklist programs twice as fast with the schedules, Louvain and the topology sweeps up
/// to 64% slower) the per-kernel rule of [`Skew::WIDE`] decides instead.
pub fn skewed(num_nodes: u64, num_edges: u64, max_degree: u64) -> bool {
    max_degree >= 32 && max_degree.saturating_mul(num_nodes.max(1)) >= num_edges.saturating_mul(4)
}

/// The values of the context's [`Layout::SKEWED`] slot, and the classes of graphs they name ([`Skew::of`]). The
/// device code only asks whether it is 0 (a scheduled entry then runs its nested loops in their threads); the
/// runtime picks the entries from the value.
pub struct Skew;

impl Skew {
    /// Degrees even: the flat twins run.
    pub const EVEN: u64 = 0;
    /// Degrees skewed ([`skewed`]): the scheduled entries run.
    pub const SKEWED: u64 = 1;
    /// Degrees even, but some node has a warp's worth of edges: the scheduled entries run for the launches and
    /// pipes that sweep a worklist, the flat twins for the rest. Measured on every program on rgg22 before it
    /// became the default (`docs/optimizer.md`, "The skew rule, measured": BFS 24.6 → 12.0 ms on an H100, none
    /// slower beyond the run's noise).
    pub const WIDE: u64 = 2;

    /// The class of a graph of `num_nodes` nodes, `num_edges` edges and largest out-degree `max_degree`: skewed
    /// ([`skewed`]), else wide where some node has a warp's worth of edges, else even.
    pub fn of(num_nodes: u64, num_edges: u64, max_degree: u64) -> u64 {
        if skewed(num_nodes, num_edges, max_degree) {
            Skew::SKEWED
        } else if max_degree >= 32 {
            Skew::WIDE
        } else {
            Skew::EVEN
        }
    }

    /// A class's name, as `irgc info` prints it: `skewed`, `wide` or `even`.
    pub fn name(class: u64) -> &'static str {
        match class {
            Skew::SKEWED => "skewed",
            Skew::WIDE => "wide",
            _ => "even",
        }
    }
}

/// The words of the bounds report (see [`Layout::bounds_report`]): the first out-of-bounds access of a launch,
/// claimed by a compare-and-swap on [`BoundsReport::SITE`] so that one access reports, whole.
pub struct BoundsReport;

impl BoundsReport {
    /// The access site's number plus one (0: no bad access).
    pub const SITE: usize = 0;
    /// The index (for a multi-dimensional array, the first one out of its bound).
    pub const INDEX: usize = 1;
    /// The bound it broke.
    pub const BOUND: usize = 2;
    /// Scratch: where a bad access and a losing report are redirected, so nothing outside the arrays is touched.
    pub const SCRATCH: usize = 3;
    pub const WORDS: usize = 4;
}

/// The slot indices of a program's kernel context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub globals: usize,
    pub worklists: usize,
    pub params: usize,
    /// The largest number of arguments any kernel takes.
    pub max_args: usize,
}

impl Layout {
    pub const ROW_START: usize = 0;
    pub const COL: usize = 1;
    pub const WEIGHTS: usize = 2;
    pub const SRC: usize = 3;
    pub const NUM_NODES: usize = 4;
    pub const NUM_EDGES: usize = 5;
    /// 1 when the graph's degrees are skewed enough for nested parallelism to pay ([`skewed`]), else 0 (or 2
    /// where asked: [`Skew::WIDE`]): a nested loop the `np` pass scheduled over a warp or block runs in its
    /// thread when this is 0.
    pub const SKEWED: usize = 6;
    const FIXED: usize = 7;

    pub fn of(a: &Artifact) -> Layout {
        Layout {
            globals: a.globals.len(),
            worklists: a.worklists.len(),
            params: a.params.len(),
            max_args: a.kernels.iter().map(|k| k.params.len()).max().unwrap_or(0),
        }
    }

    /// Data pointer of global `g`; `+1` and `+2` hold its dimensions.
    pub fn global(&self, g: usize) -> usize {
        Self::FIXED + 3 * g
    }

    pub fn worklist(&self, w: usize, slot: WorklistSlot) -> usize {
        Self::FIXED + 3 * self.globals + WorklistSlot::COUNT * w + slot as usize
    }

    pub fn param(&self, p: usize) -> usize {
        Self::FIXED + 3 * self.globals + WorklistSlot::COUNT * self.worklists + p
    }

    pub fn arg(&self, i: usize) -> usize {
        self.param(self.params) + i
    }

    /// The slot a kernel writes its reduction result to (GPU backends; CPU kernels return it).
    pub fn reduction(&self) -> usize {
        self.arg(self.max_args)
    }

    /// Total number of slots the generated code's slot table covers.
    pub fn len(&self) -> usize {
        self.reduction() + 1
    }

    /// The slot after the table: the address of the bounds report, a buffer of [`BoundsReport::WORDS`] `u64`s
    /// that bounds-checked kernels (`--check-bounds`) write the first bad index to. Kept out of [`Layout::len`]
    /// so code without checks is unchanged.
    pub fn bounds_report(&self) -> usize {
        self.len()
    }

    /// The slot after the bounds report's: the address of the wait flags, one byte per iteration of a launch
    /// whose sweep waits ([`crate::KernelDesc::waits`]): 1 once the iteration ran to its end, 0 while it has not
    /// (all 0 between launches). Kept out of [`Layout::len`] like the bounds report.
    pub fn wait_flags(&self) -> usize {
        self.len() + 1
    }

    /// Slots the runtime allocates for a context: the table, the bounds report's address and the wait flags'.
    pub fn context_len(&self) -> usize {
        self.len() + 2
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_slots_do_not_overlap() {
        let l = Layout { globals: 2, worklists: 1, params: 3, max_args: 2 };
        assert_eq!(Layout::SKEWED, 6);
        assert_eq!(l.global(0), 7);
        assert_eq!(l.global(1), 10);
        assert_eq!(l.worklist(0, WorklistSlot::InItems), 13);
        assert_eq!(l.worklist(0, WorklistSlot::Overflow), 20);
        assert_eq!(l.worklist(0, WorklistSlot::SpentCount), 21);
        assert_eq!(l.param(0), 22);
        assert_eq!(l.arg(0), 25);
        assert_eq!(l.reduction(), 27);
        assert_eq!(l.len(), 28);
    }

    #[test]
    fn only_graphs_with_hubs_well_above_the_mean_are_skewed() {
        // kron22: mean degree 30.6, largest 162,600.
        assert!(skewed(4_194_304, 128_306_128, 162_600));
        // urand22: mean 16, largest about 40; a road network: mean 2.5, largest 9.
        assert!(!skewed(4_194_304, 67_108_706, 40));
        assert!(!skewed(1_070_376, 2_687_902, 9));
        // A star: one hub of n - 1 edges.
        assert!(skewed(1000, 1998, 999));
        assert!(!skewed(0, 0, 0));
    }
}
