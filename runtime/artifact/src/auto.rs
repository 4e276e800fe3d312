//! `hybrid W above auto`: the mode a round runs, chosen from what each mode cost in earlier rounds instead of a
//! hand-set threshold (seed 002 sets IPGC's by experiment and names an analytical choice as future work).
//!
//! The model is the simplest that fits both kinds of `hybrid` the programs have: a `sparse` round (over the
//! worklist) costs a fixed part (launches, barriers, a near-empty sweep) plus a part per item: a line through an
//! anchor round and the first later round at least twice or at most half its size (sizes closer than that made the
//! slope noise: a grid's BFS frontier grows by a few items a level), shifted to each sparse round in between, and
//! through the origin while there is one round; a `dense` round (over
//! every node) costs what the last one did, whatever the worklist's size. Each round predicts both and runs the
//! cheaper. A mode not yet measured is predicted from the other with the prior that a node costs the same in
//! either mode (for `dense`, what an item of the anchor sparse round cost, fixed part included: see
//! `AutoHybrid::dense_prior`), and is tried once its prediction comes within
//! [`AutoHybrid::EXPLORE`]× of the measured one's: a graph where one mode never pays pays for at most one trial of
//! it.
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
    /// A mode not yet measured is tried once its prediction is within this factor of the measured mode's. The
    /// prior (a node costs the same in both modes) is pessimistic for a dense sweep, where most nodes do little
    /// (a BFS's bottom-up step): at 4, R-MAT 2^22's BFS tried `dense` a level after the frontier passed 7% of the
    /// nodes, where the best fixed threshold switches (H100: 4.3 ms against 2.5).
    pub const EXPLORE: f64 = 16.0;
    /// Words of a `hybrid`'s estimates in an outlined pipe's state area: the fields, in order.
    pub const WORDS: usize = 5;

    /// The predicted time of a `sparse` round over `size` items.
    fn sparse_at(&self, size: f64) -> f64 {
        self.sparse_base + self.sparse_per_item * size
    }

    /// A `dense` round not yet measured, predicted from the sparse rounds with the prior that a node costs what an
    /// item does: the line over every node, once the line is worth trusting, that is once the anchor round's part
    /// per item (its time less the fixed part) is at least the fixed part. While it is not (only small rounds
    /// known: their times are the fixed part and noise, the slope near 0 or clamped there), the line would predict
    /// dense as cheap as a small round, and a BFS on urand22 tried a bottom-up sweep at a frontier of a few hundred
    /// nodes (the whole graph's edges read for nothing; 1.7x the best fixed threshold). Then every node is charged
    /// what an item of the anchor cost, its fixed part included, which is never less than the line. Charging that
    /// throughout was too pessimistic where the fixed part is large against a round's work (a GPU's persistent
    /// kernel): R-MAT 2^22's BFS ran its fourth level (7% of the nodes, with 20% of the edges) top-down where a
    /// threshold of 5% switches (H100: 2.1x the best fixed threshold). Either way `dense` is first tried when the
    /// worklist holds about `nodes / EXPLORE` items or more.
    fn dense_prior(&self, nodes: f64) -> f64 {
        if self.sparse_per_item * self.last_size >= self.sparse_base {
            self.sparse_at(nodes)
        } else {
            self.last_sparse * nodes / self.last_size.max(1.0)
        }
    }

    /// Whether a round with `size` items in the worklist, on a graph of `nodes` nodes, runs `dense`.
    pub fn dense(&self, size: u64, nodes: u64) -> bool {
        let (x, n) = (size as f64, nodes as f64);
        let (known_sparse, known_dense) = (!self.sparse_per_item.is_nan(), !self.dense.is_nan());
        if known_sparse && known_dense {
            return self.dense < self.sparse_at(x);
        }
        if known_sparse {
            return self.dense_prior(n) < Self::EXPLORE * self.sparse_at(x);
        }
        if known_dense {
            // Sparse predicted as dense's cost per node times the items; tried when within EXPLORE× (a NaN from an
            // empty graph counts as not within: dense).
            let sparse = self.dense * x / n;
            return sparse.partial_cmp(&(Self::EXPLORE * self.dense)) != Some(std::cmp::Ordering::Less);
        }
        // Nothing measured: sparse, the items the program asked for; its time anchors the line, and dense is then
        // predicted from it. (Running the first of IPGC's rounds, which holds every node, dense when it held most
        // nodes cost one dense round more than sparse throughout on grid2k and rgg22: 1.17x and 1.11x.)
        false
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
    fn a_bfs_like_run_tries_dense_once_the_frontier_is_large_and_keeps_the_cheaper() {
        let n = 1_000_000;
        let mut a = AutoHybrid::default();
        assert!(!a.dense(1, n), "nothing known: sparse");
        assert!(!AutoHybrid::default().dense(n, n), "nothing known: sparse, even over every node");
        a.update(false, 1, 10_000.0);
        // Through the origin: 10 us an item, so dense (sparse over every node) is far off.
        assert!(!a.dense(3, n));
        a.update(false, 3, 10_000.0);
        // The line through both: 10 us whatever the size. Dense is not predicted at 10 us from that: by the anchor's
        // 3.3 us an item it would take 3.3 s.
        assert_eq!((a.sparse_base, a.sparse_per_item), (10_000.0, 0.0));
        assert!(!a.dense(6, n), "a flat line from small rounds does not make dense look cheap");
        a.update(false, 1_000, 11_000.0);
        assert!(!a.dense(2_000, n));
        a.update(false, 70_000, 80_000.0);
        // 10 us plus 1 ns an item, and the anchor's 70 us of items outweigh its 10 us fixed part: dense is the line
        // over every node, 1.01 ms, tried within 16x of sparse.
        assert!((a.sparse_per_item - 1.0).abs() < 1e-12 && (a.sparse_base - 10_000.0).abs() < 1e-6);
        assert!(!a.dense(50_000, n), "1.01 ms > 16 x 60 us");
        assert!(a.dense(100_000, n), "1.01 ms < 16 x 110 us: tried at a tenth of the nodes");
        a.update(true, 100_000, 60_000.0);
        assert!(a.dense(200_000, n), "both known: dense 60 us beats sparse 210 us");
        assert!(!a.dense(40_000, n), "sparse 50 us < dense 60 us");
    }

    #[test]
    fn the_fixed_part_is_charged_to_every_node_only_while_it_outweighs_the_anchors_items() {
        // An R-MAT BFS's first levels as a persistent kernel might time them (ns): a fixed part of about 5 us a
        // round, then a level of 5,485 nodes with 67 edges each. Its next frontier holds 7% of the nodes.
        let n = 4_194_304;
        let mut a = AutoHybrid::default();
        a.update(false, 1, 5_000.0);
        a.update(false, 77, 5_200.0);
        // 2.6 ns an item against a 5 us fixed part: every node at the anchor's 67.5 ns, 283 ms.
        assert!(a.sparse_per_item * a.last_size < a.sparse_base);
        assert!(!a.dense(5_485, n), "283 ms > 16 x 19 us");
        a.update(false, 5_485, 40_000.0);
        // 6.4 ns an item, 35 us of the anchor's 40: the line over every node, 27 ms (not 30.6 at 7.3 ns a node).
        assert!(a.sparse_per_item * a.last_size >= a.sparse_base);
        assert!(a.dense(287_043, n), "27 ms < 16 x 1.85 ms: tried at 7% of the nodes");
        assert!(!a.dense(200_000, n), "27 ms > 16 x 1.29 ms");
    }

    #[test]
    fn a_colouring_like_run_starts_sparse_and_tries_dense_while_the_worklist_is_large() {
        let n = 1000;
        let mut a = AutoHybrid::default();
        assert!(!a.dense(1000, n), "nothing known: sparse, though every node is in the worklist");
        a.update(false, 1000, 300.0);
        // Dense predicted at the anchor's 0.3 an item over every node: 300, within 16x of sparse over 40 items (12)?
        assert!(!a.dense(40, n), "300 > 16 x 12: not worth a trial");
        assert!(a.dense(500, n), "300 < 16 x 150: tried");
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
