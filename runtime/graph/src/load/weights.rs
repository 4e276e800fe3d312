//! Replacing or inventing edge weights at load time ([`WeightSpec`]).
//!
//! Random weights must be reproducible (the same seed gives the same graph on every machine and every run, whatever
//! the thread count), and on an undirected graph both stored directions of an edge must get the same weight, or
//! shortest paths would depend on the direction of travel. So each weight is a pure function of the seed and the
//! unordered pair `(min(u, v), max(u, v))`, for directed inputs too: a program that needs an undirected graph
//! symmetrizes a directed one at run time (`graph G(undirected)`), and its edges' two directions must agree there
//! as well (keying directed arcs by file position once gave a matching two weights for one edge). Parallel arcs
//! of a multigraph therefore share a weight.

use crate::csr::Weights;
use crate::error::LoadError;
use crate::load::edges::Parsed;

/// Where edge weights come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WeightSpec {
    /// The weights written in the file, or none if it has none.
    #[default]
    AsFile,
    /// Every edge gets this weight (replacing any in the file).
    Constant(i64),
    /// Pseudo-random integers uniform in `lo..=hi` (replacing any in the file), deterministic in `seed`.
    UniformInt { lo: i64, hi: i64, seed: u64 },
}

impl std::str::FromStr for WeightSpec {
    type Err = String;

    /// `--weights`: `const:W` or `random:LO:HI[:SEED]` (seed 1 by default).
    fn from_str(s: &str) -> Result<WeightSpec, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let num =
            |t: &str, what: &str| t.trim().parse::<i64>().map_err(|_| format!("bad {what} `{t}` in --weights {s}"));
        match parts.as_slice() {
            ["const", w] => Ok(WeightSpec::Constant(num(w, "weight")?)),
            ["random", lo, hi] | ["random", lo, hi, _] => {
                let (lo, hi) = (num(lo, "lower bound")?, num(hi, "upper bound")?);
                if lo > hi {
                    return Err(format!("--weights {s}: the range {lo}..={hi} is empty"));
                }
                let seed = match parts.get(3) {
                    Some(t) => t.trim().parse::<u64>().map_err(|_| format!("bad seed `{t}` in --weights {s}"))?,
                    None => 1,
                };
                Ok(WeightSpec::UniformInt { lo, hi, seed })
            }
            _ => Err(format!("--weights {s}: expected const:W or random:LO:HI[:SEED]")),
        }
    }
}

impl WeightSpec {
    pub(crate) fn validate(&self) -> Result<(), LoadError> {
        match *self {
            WeightSpec::UniformInt { lo, hi, .. } if lo > hi => {
                Err(LoadError::Options(format!("random weight range {lo}..={hi} is empty")))
            }
            _ => Ok(()),
        }
    }
}

/// The splitmix64 step: a fast, well-mixed 64-bit bijection (Steele, Lea and Flood 2014).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(seed: u64, a: u64, b: u64, lo: i64, hi: i64) -> i64 {
    let x = splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b);
    let span = (hi as i128 - lo as i128 + 1) as u128;
    (lo as i128 + (x as u128 % span) as i128) as i64
}

/// Applies `spec` to the parsed edges.
pub(crate) fn apply(spec: WeightSpec, parsed: &mut Parsed) {
    let edges = &mut parsed.edges;
    match spec {
        WeightSpec::AsFile => {}
        WeightSpec::Constant(c) => edges.weights = Some(Weights::Int(vec![c; edges.src.len()].into())),
        WeightSpec::UniformInt { lo, hi, seed } => {
            let w = edges
                .src
                .iter()
                .zip(&edges.dst)
                .map(|(&u, &v)| uniform(seed, u.min(v) as u64, u.max(v) as u64, lo, hi))
                .collect();
            edges.weights = Some(Weights::Int(w));
        }
    }
}
