//! Edge weights for generated graphs.
//!
//! The weight of an edge is a hash of the seed and its two (unordered) endpoints rather than a draw from a stream.
//! That is what makes both directions of an undirected edge carry the SAME weight after
//! [`EdgeList::into_csr`](irgc_graph::EdgeList::into_csr): the generators may produce a pair more than once (R-MAT
//! and Erdős–Rényi sample with replacement), dedupe keeps the first copy of each direction, and those two copies
//! may come from different samples. With a weight that depends only on the pair, every copy agrees.

use std::fmt;

#[cfg(test)]
use irgc_graph::EdgeList;
use irgc_graph::{Csr, Weights};
use rayon::prelude::*;

use crate::rng::{domain, hash3, unit_f64};

/// Which weights a generated graph carries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum WeightSpec {
    /// Unweighted.
    #[default]
    None,
    /// Integers uniform in `[lo, hi]` (both included); `lo <= hi`.
    Int { lo: i64, hi: i64 },
    /// Floats uniform in `[lo, hi)`; `lo < hi`, both finite.
    Float { lo: f64, hi: f64 },
}

impl WeightSpec {
    /// The integer weights used when a spec says just `weights=int`.
    pub const DEFAULT_INT: WeightSpec = WeightSpec::Int { lo: 1, hi: 255 };
    /// The float weights used when a spec says just `weights=float`.
    pub const DEFAULT_FLOAT: WeightSpec = WeightSpec::Float { lo: 0.0, hi: 1.0 };

    /// The weight of the undirected edge `{u, v}` under `seed`.
    fn int_weight(lo: i64, hi: i64, seed: u64, u: u32, v: u32) -> i64 {
        let range = (hi as i128 - lo as i128 + 1) as u128;
        let offset = (pair_hash(seed, u, v) as u128 * range) >> 64;
        (lo as i128 + offset as i128) as i64
    }

    fn float_weight(lo: f64, hi: f64, seed: u64, u: u32, v: u32) -> f64 {
        let w = lo + (hi - lo) * unit_f64(pair_hash(seed, u, v));
        // `lo + (hi - lo) * x` can round up to `hi` for x just below 1; keep the interval half-open.
        if w >= hi {
            lo
        } else {
            w
        }
    }

    /// The weights of every edge of `g`, in edge order.
    pub(crate) fn for_csr(&self, g: &Csr, seed: u64) -> Option<Weights> {
        // One task per row; collect keeps row order.
        let edges =
            || (0..g.num_nodes()).into_par_iter().flat_map_iter(|v| g.neighbors(v).iter().map(move |&u| (v, u)));
        match *self {
            WeightSpec::None => None,
            WeightSpec::Int { lo, hi } => {
                Some(Weights::Int(edges().map(|(u, v)| Self::int_weight(lo, hi, seed, u, v)).collect()))
            }
            WeightSpec::Float { lo, hi } => {
                Some(Weights::Float(edges().map(|(u, v)| Self::float_weight(lo, hi, seed, u, v)).collect()))
            }
        }
    }

    /// Sets `el.weights` from the endpoints of each edge: the same weights [`Self::for_csr`] gives, attached to an
    /// edge list instead (for checking `assemble` against `EdgeList::into_csr`).
    #[cfg(test)]
    pub(crate) fn apply(&self, el: &mut EdgeList, seed: u64) {
        let pairs = el.src.par_iter().zip(el.dst.par_iter());
        el.weights = match *self {
            WeightSpec::None => None,
            WeightSpec::Int { lo, hi } => {
                Some(Weights::Int(pairs.map(|(&u, &v)| Self::int_weight(lo, hi, seed, u, v)).collect()))
            }
            WeightSpec::Float { lo, hi } => {
                Some(Weights::Float(pairs.map(|(&u, &v)| Self::float_weight(lo, hi, seed, u, v)).collect()))
            }
        };
    }
}

fn pair_hash(seed: u64, u: u32, v: u32) -> u64 {
    let (a, b) = if u <= v { (u, v) } else { (v, u) };
    hash3(seed, domain::WEIGHTS, (a as u64) << 32 | b as u64)
}

/// The spec form: `none`, `int:LO:HI` or `float:LO:HI`.
impl fmt::Display for WeightSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightSpec::None => write!(f, "none"),
            WeightSpec::Int { lo, hi } => write!(f, "int:{lo}:{hi}"),
            WeightSpec::Float { lo, hi } => write!(f, "float:{lo}:{hi}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_stay_in_range_and_ignore_direction() {
        for (u, v) in [(0, 1), (5, 3), (100, 7), (u32::MAX, 0)] {
            let w = WeightSpec::int_weight(1, 255, 9, u, v);
            assert!((1..=255).contains(&w));
            assert_eq!(w, WeightSpec::int_weight(1, 255, 9, v, u));
            let f = WeightSpec::float_weight(-1.0, 2.0, 9, u, v);
            assert!((-1.0..2.0).contains(&f));
            assert_eq!(f, WeightSpec::float_weight(-1.0, 2.0, 9, v, u));
        }
        // The full i64 range must not overflow.
        let _ = WeightSpec::int_weight(i64::MIN, i64::MAX, 1, 2, 3);
        assert_eq!(WeightSpec::int_weight(4, 4, 1, 2, 3), 4);
    }
}
