//! Replacing or inventing edge weights at load time ([`WeightSpec`]).
//!
//! Random weights must be reproducible (the same seed gives the same graph on every machine and every run, whatever
//! the thread count), and on an undirected graph both stored directions of an edge must get the same weight, or
//! shortest paths would depend on the direction of travel. So each weight is a pure function of the seed and a key:
//! the unordered pair `(min(u, v), max(u, v))` for undirected or symmetrized inputs, the edge's position in the file
//! otherwise (so parallel arcs of a directed multigraph get independent weights).

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

/// Separates the "edge position" keys of directed inputs from the "node pair" keys of undirected ones.
const POSITION_DOMAIN: u64 = 0xD1B5_4A32_D192_ED03;

fn uniform(seed: u64, a: u64, b: u64, lo: i64, hi: i64) -> i64 {
    let x = splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b);
    let span = (hi as i128 - lo as i128 + 1) as u128;
    (lo as i128 + (x as u128 % span) as i128) as i64
}

/// Applies `spec` to the parsed edges; `symmetrize` says the build will add reverse edges.
pub(crate) fn apply(spec: WeightSpec, parsed: &mut Parsed, symmetrize: bool) {
    let edges = &mut parsed.edges;
    match spec {
        WeightSpec::AsFile => {}
        WeightSpec::Constant(c) => edges.weights = Some(Weights::Int(vec![c; edges.src.len()])),
        WeightSpec::UniformInt { lo, hi, seed } => {
            let by_pair = parsed.undirected || symmetrize;
            let w = edges
                .src
                .iter()
                .zip(&edges.dst)
                .enumerate()
                .map(|(i, (&u, &v))| {
                    if by_pair {
                        uniform(seed, u.min(v) as u64, u.max(v) as u64, lo, hi)
                    } else {
                        uniform(seed, i as u64, POSITION_DOMAIN, lo, hi)
                    }
                })
                .collect();
            edges.weights = Some(Weights::Int(w));
        }
    }
}
