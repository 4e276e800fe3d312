//! `hybrid W above auto`: the mode a round runs, chosen from what each mode cost in earlier rounds instead of a
//! hand-set threshold (seed 002 sets IPGC's by experiment and names an analytical choice as future work).
//!
//! The model is the simplest that fits both kinds of `hybrid` the programs have: a `sparse` round (over the
//! worklist) costs a fixed part (launches, barriers, a near-empty sweep) plus a part per item: a line through an
//! anchor round and the first later round at least twice or at most half its size (sizes closer than that made the
//! slope noise: a grid's BFS frontier grows by a few items a level), shifted to each sparse round in between, and
//! through the origin while there is one round; a `dense` round (over
//! every node) costs what the last one did, whatever the worklist's size. Each round predicts both and runs the
//! cheaper. A `dense` mode not yet measured is tried once the worklist holds `nodes / EXPLORE` items (see
//! [`AutoHybrid::EXPLORE`]): a graph where dense never pays pays for at most one trial of it. (The sparse mode is
//! always measured first: with nothing measured a round runs sparse.)
//!
//! The host path (`irgc_runtime`'s plan) and the outlined persistent kernel (`irgc_backend_ptx`'s pipe) implement
//! exactly these formulas in `f64`; the kernel reads the estimates two rounds late (see
//! [`crate::PipeState::auto_words`]), so that every thread takes the same branch.

use serde::{Deserialize, Serialize};

/// What one `hybrid ... above auto` has measured, in ns. `NaN` marks what is not known yet.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoHybrid {
    /// The anchor `sparse` round's worklist size, and its time.
    pub last_size: f64,
    pub last_sparse: f64,
    /// The predicted sparse round: `sparse_base + sparse_per_item × items`.
    pub sparse_base: f64,
    pub sparse_per_item: f64,
    /// The last `dense` round's time.
    pub dense: f64,
}

impl Default for AutoHybrid {
    fn default() -> AutoHybrid {
        let nan = f64::NAN;
        AutoHybrid { last_size: nan, last_sparse: nan, sparse_base: nan, sparse_per_item: nan, dense: nan }
    }
}

impl AutoHybrid {
    /// An untried `dense` is tried once the worklist holds at least `nodes / EXPLORE` items: the prior that a node
    /// of a dense sweep costs what an item of a sparse round does, and that a trial is worth up to EXPLORE sparse
    /// rounds' cost. The prior is in sizes, not in the sparse rounds' times, because those times could not carry it
    /// across the range: a round's fixed part (launches, barriers) is most of a small round's time, and (1) through
    /// the sparse line (every node at its slope) dense looked as cheap as a small round while the slope was noise,
    /// so a BFS on urand22 tried a bottom-up sweep at a frontier of a few hundred nodes (1.7x the best fixed
    /// threshold, H100); (2) charging every node the anchor round's time per item, fixed part included, made dense
    /// look 20 times dearer than it is on a GPU, so R-MAT 2^22's BFS ran its fourth level (7% of the nodes, 20% of
    /// the edges) top-down where a threshold of 5% switches (2.1x); (3) trusting the line only once the anchor's
    /// part per item outweighed its fixed part made that choice hang on one host-timed round's noise (the same
    /// R-MAT BFS: 1.9 ms in one run of three, 3.7 in the others). 16 is the factor the time-based priors used; it
    /// is a choice, not a measurement: a graph whose frontier passes 5% of the nodes but not 1/16 gets its first
    /// dense round a level later than H = 0.05 gives it.
    pub const EXPLORE: f64 = 16.0;
    /// Words of a `hybrid`'s estimates in an outlined pipe's state area: the fields, in order.
    pub const WORDS: usize = 5;

    /// The predicted time of a `sparse` round over `size` items.
    fn sparse_at(&self, size: f64) -> f64 {
        self.sparse_base + self.sparse_per_item * size
    }

    /// Whether a round with `size` items in the worklist, on a graph of `nodes` nodes, runs `dense`.
    pub fn dense(&self, size: u64, nodes: u64) -> bool {
        let (x, n) = (size as f64, nodes as f64);
        if self.sparse_per_item.is_nan() {
            // Nothing measured: sparse, the items the program asked for; its time anchors the line. (Running the
            // first of IPGC's rounds, which holds every node, dense when it held most nodes cost one dense round
            // more than sparse throughout on grid2k and rgg22: 1.17x and 1.11x.) So dense is never measured before
            // sparse.
            return false;
        }
        if self.dense.is_nan() {
            return x * Self::EXPLORE >= n;
        }
        self.dense < self.sparse_at(x)
    }

    /// Takes in a round that ran `dense` (or not) over `size` items and took `ns`.
    pub fn update(&mut self, dense: bool, size: u64, ns: f64) {
        if dense {
            self.dense = ns;
            return;
        }
        let x = size as f64;
        let one = x.max(1.0);
        let anchored = !self.last_size.is_nan();
        let far = x >= 2.0 * self.last_size || 2.0 * x <= self.last_size;
        // The line through the anchor, if this size is far from it (this round becomes the anchor); the old slope
        // through this round, if near; through the origin, for a first round (the anchor).
        let (mut per, mut base) = if anchored && far {
            let per = (ns - self.last_sparse) / (x - self.last_size);
            (per, ns - per * x)
        } else if anchored {
            (self.sparse_per_item, ns - self.sparse_per_item * x)
        } else {
            (ns / one, 0.0)
        };
        // Noise can tilt the line: never a negative cost.
        if per < 0.0 {
            (per, base) = (0.0, ns);
        }
        if base < 0.0 {
            (per, base) = (ns / one, 0.0);
        }
        let (last_size, last_sparse) = if anchored && !far { (self.last_size, self.last_sparse) } else { (x, ns) };
        *self = AutoHybrid { last_size, last_sparse, sparse_base: base, sparse_per_item: per, ..*self };
    }

    /// The estimates as state words (`f64` bits, in field order), and back.
    pub fn to_words(&self) -> [u64; Self::WORDS] {
        [self.last_size, self.last_sparse, self.sparse_base, self.sparse_per_item, self.dense].map(f64::to_bits)
    }

    pub fn from_words(w: &[u64]) -> AutoHybrid {
        let f = |i: usize| w.get(i).map_or(f64::NAN, |&b| f64::from_bits(b));
        AutoHybrid { last_size: f(0), last_sparse: f(1), sparse_base: f(2), sparse_per_item: f(3), dense: f(4) }
    }
}

#[cfg(test)]
mod tests {
    use super::AutoHybrid;

    #[test]
    fn a_bfs_like_run_tries_dense_once_the_frontier_holds_a_sixteenth_and_keeps_the_cheaper() {
        let n = 1_000_000;
        let mut a = AutoHybrid::default();
        assert!(!a.dense(1, n), "nothing known: sparse");
        assert!(!AutoHybrid::default().dense(n, n), "nothing known: sparse, even over every node");
        a.update(false, 1, 10_000.0);
        a.update(false, 3, 10_000.0);
        // The line through both: 10 us whatever the size. It does not make dense look cheap.
        assert_eq!((a.sparse_base, a.sparse_per_item), (10_000.0, 0.0));
        assert!(!a.dense(6, n));
        a.update(false, 1_000, 11_000.0);
        a.update(false, 30_000, 40_000.0);
        // 10 us plus 1 ns an item.
        assert!((a.sparse_per_item - 1.0).abs() < 1e-9 && (a.sparse_base - 10_000.0).abs() < 1e-3);
        assert!(!a.dense(62_499, n), "below a sixteenth of the nodes: not tried");
        assert!(a.dense(62_500, n), "a sixteenth: tried");
        a.update(true, 62_500, 60_000.0);
        assert!(a.dense(200_000, n), "both known: dense 60 us beats sparse 210 us");
        assert!(!a.dense(40_000, n), "sparse 50 us < dense 60 us");
    }

    #[test]
    fn the_first_dense_trial_does_not_hang_on_the_small_rounds_times() {
        // An R-MAT BFS's first levels (1, 77, 5,485 nodes; the next holds 287,043, 7% of the nodes), timed with
        // a fixed part of 5 or of 50 us: the trial comes at the same level either way.
        let n = 4_194_304;
        for fixed in [5_000.0, 50_000.0] {
            let mut a = AutoHybrid::default();
            for (size, ns) in [(1, fixed), (77, fixed + 200.0), (5_485, fixed + 35_000.0)] {
                assert!(!a.dense(size, n));
                a.update(false, size, ns);
            }
            assert!(a.dense(287_043, n), "fixed part {fixed} ns");
        }
    }

    #[test]
    fn a_colouring_like_run_starts_sparse_and_tries_dense_while_the_worklist_is_large() {
        let n = 1000;
        let mut a = AutoHybrid::default();
        assert!(!a.dense(1000, n), "nothing known: sparse, though every node is in the worklist");
        a.update(false, 1000, 300.0);
        assert!(!a.dense(40, n), "40 items, under a sixteenth of the nodes: not tried");
        assert!(a.dense(500, n), "half the nodes: tried");
        a.update(true, 500, 100.0);
        assert!(a.dense(400, n), "both known: sparse 120 > dense 100");
        assert!(!a.dense(200, n), "sparse 60 < dense 100");
        a.update(false, 200, 90.0);
        // The line through (1000, 300) and (200, 90): 37.5 plus 0.2625 an item.
        assert!((a.sparse_per_item - 0.2625).abs() < 1e-12 && (a.sparse_base - 37.5).abs() < 1e-9);
        let back = AutoHybrid::from_words(&a.to_words());
        assert_eq!(back, a);
        assert!(AutoHybrid::from_words(&[]).dense.is_nan());
    }

    #[test]
    fn rounds_of_nearly_the_same_size_shift_the_line_but_keep_its_slope() {
        let mut a = AutoHybrid::default();
        a.update(false, 1000, 1000.0);
        a.update(false, 4000, 4000.0);
        assert_eq!((a.sparse_base, a.sparse_per_item, a.last_size), (0.0, 1.0, 4000.0));
        // 10 items more and 500 ns slower: noise, not 50 ns an item.
        a.update(false, 4010, 4500.0);
        assert_eq!((a.sparse_per_item, a.sparse_base, a.last_size), (1.0, 490.0, 4000.0));
        // Twice the anchor's size: a new line, through the anchor (4000, 4000) and (8000, 7800).
        a.update(false, 8000, 7800.0);
        assert!((a.sparse_per_item - 0.95).abs() < 1e-12 && (a.sparse_base - 200.0).abs() < 1e-9);
        assert_eq!(a.last_size, 8000.0);
    }
}
