//! Generator specs: the text after `gen:` in `--graph gen:rmat:scale=20,ef=16,seed=1`.
//!
//! Grammar: `KIND[:KEY=VALUE[,KEY=VALUE]...]`. Every generator has sensible defaults except its size, which must
//! be given. [`fmt::Display`] prints the canonical form (every key that matters, in a fixed order, defaults made
//! explicit), so that a spec printed in a benchmark table regenerates exactly the same graph, and two specs name
//! the same graph exactly when their canonical forms are equal.

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

use crate::catalog::{self, GeneratorDoc, DEFAULT_DEGREE, DEFAULT_EDGE_FACTOR, DEFAULT_SEED};
use crate::delaunay::DelaunayParams;
use crate::er::ErParams;
use crate::grid::{GridParams, DEFAULT_DROP};
use crate::rgg::RggParams;
use crate::rmat::{RmatParams, RmatPreset};
use crate::weights::WeightSpec;

/// A spec that could not be parsed. Every message names the offending key or value and what would be valid.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum GenError {
    #[error("unknown generator `{kind}`; valid generators: {valid}")]
    UnknownKind { kind: String, valid: String },
    #[error("unknown key `{key}` for generator `{kind}`; valid keys: {valid}")]
    UnknownKey { kind: &'static str, key: String, valid: String },
    #[error("`{item}` in generator `{kind}` is not KEY=VALUE; valid keys: {valid}")]
    NotKeyValue { kind: &'static str, item: String, valid: String },
    #[error("key `{key}` is given twice")]
    DuplicateKey { key: String },
    #[error("bad value `{value}` for key `{key}`: expected {expected}")]
    BadValue { key: &'static str, value: String, expected: String },
    #[error("generator `{kind}` needs {needs}")]
    MissingKey { kind: &'static str, needs: &'static str },
    #[error("keys `{first}` and `{second}` cannot be given together")]
    Conflict { first: &'static str, second: &'static str },
}

/// Which graph to generate (without weights).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphSpec {
    Rmat(RmatParams),
    Er(ErParams),
    Rgg(RggParams),
    Delaunay(DelaunayParams),
    Grid(GridParams),
}

/// A complete generator spec: the graph and its weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenSpec {
    pub graph: GraphSpec,
    pub weights: WeightSpec,
}

impl GraphSpec {
    pub fn seed(&self) -> u64 {
        match self {
            GraphSpec::Rmat(p) => p.seed,
            GraphSpec::Er(p) => p.seed,
            GraphSpec::Rgg(p) => p.seed,
            GraphSpec::Delaunay(p) => p.seed,
            GraphSpec::Grid(p) => p.seed,
        }
    }
}

/// The `key=value` pairs of one spec, consumed as they are read so that leftovers can be reported as unknown.
struct Keys {
    kind: &'static str,
    /// The keys the catalog lists for `kind`; the only ones [`Keys::take`] may ask for.
    doc: &'static GeneratorDoc,
    map: BTreeMap<String, String>,
}

impl Keys {
    fn parse(doc: &'static GeneratorDoc, body: &str) -> Result<Keys, GenError> {
        let kind = doc.name;
        let mut map = BTreeMap::new();
        for item in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(GenError::NotKeyValue { kind, item: item.to_string(), valid: doc.key_names() });
            };
            let key = key.trim().to_ascii_lowercase();
            if map.insert(key.clone(), value.trim().to_string()).is_some() {
                return Err(GenError::DuplicateKey { key });
            }
        }
        Ok(Keys { kind, doc, map })
    }

    fn take<T>(
        &mut self,
        key: &'static str,
        expected: &str,
        convert: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, GenError> {
        debug_assert!(
            self.doc.keys.iter().any(|k| k.name == key),
            "`{key}` is missing from the catalog of {}",
            self.kind
        );
        match self.map.remove(key) {
            None => Ok(None),
            Some(value) => match convert(&value) {
                Some(v) => Ok(Some(v)),
                None => Err(GenError::BadValue { key, value, expected: expected.to_string() }),
            },
        }
    }

    fn seed(&mut self) -> Result<u64, GenError> {
        Ok(self.take("seed", "an unsigned 64-bit integer", |s| s.parse().ok())?.unwrap_or(DEFAULT_SEED))
    }

    fn scale(&mut self, max: u32) -> Result<Option<u32>, GenError> {
        let expected = format!("an integer from 1 to {max}");
        self.take("scale", &expected, |s| s.parse().ok().filter(|x| (1..=max).contains(x)))
    }

    /// The node count, from `n` or `scale` (`n = 2^scale`), exactly one of which must be given.
    fn node_count(&mut self, needs: &'static str) -> Result<u32, GenError> {
        let n = self.take("n", "an integer from 1 to 4294967295", |s| s.parse().ok().filter(|&x: &u32| x >= 1))?;
        let scale = self.scale(31)?;
        match (n, scale) {
            (Some(_), Some(_)) => Err(GenError::Conflict { first: "n", second: "scale" }),
            (Some(n), None) => Ok(n),
            (None, Some(s)) => Ok(1 << s),
            (None, None) => Err(GenError::MissingKey { kind: self.kind, needs }),
        }
    }

    fn weights(&mut self) -> Result<WeightSpec, GenError> {
        let expected = "none, int, int:LO:HI (LO <= HI), float or float:LO:HI (LO < HI)";
        Ok(self.take("weights", expected, parse_weights)?.unwrap_or_default())
    }

    /// Fails on the first key nobody asked for.
    fn finish(self) -> Result<(), GenError> {
        match self.map.into_keys().next() {
            Some(key) => Err(GenError::UnknownKey { kind: self.kind, key, valid: self.doc.key_names() }),
            None => Ok(()),
        }
    }
}

fn parse_weights(s: &str) -> Option<WeightSpec> {
    let parts: Vec<&str> = s.split(':').collect();
    match parts.as_slice() {
        ["none"] => Some(WeightSpec::None),
        ["int"] => Some(WeightSpec::DEFAULT_INT),
        ["float"] => Some(WeightSpec::DEFAULT_FLOAT),
        ["int", lo, hi] => {
            let (lo, hi) = (lo.parse().ok()?, hi.parse().ok()?);
            (lo <= hi).then_some(WeightSpec::Int { lo, hi })
        }
        ["float", lo, hi] => {
            let (lo, hi): (f64, f64) = (lo.parse().ok()?, hi.parse().ok()?);
            (lo.is_finite() && hi.is_finite() && lo < hi).then_some(WeightSpec::Float { lo, hi })
        }
        _ => None,
    }
}

fn probability(s: &str) -> Option<f64> {
    s.parse().ok().filter(|x: &f64| (0.0..=1.0).contains(x))
}

impl GenSpec {
    /// Parses `KIND[:KEY=VALUE,...]`, e.g. `rmat:scale=20,ef=16,seed=1`. Keys are case-insensitive; spaces around
    /// items are ignored.
    pub fn parse(spec: &str) -> Result<GenSpec, GenError> {
        let (kind, body) = spec.trim().split_once(':').unwrap_or((spec.trim(), ""));
        let kind = kind.trim().to_ascii_lowercase();
        let Some(doc) = catalog::generator(&kind) else {
            return Err(GenError::UnknownKind { kind, valid: catalog::names() });
        };
        let keys = Keys::parse(doc, body)?;
        let (graph, weights) = match doc.name {
            "rmat" => parse_rmat(keys, false)?,
            "kron" => parse_rmat(keys, true)?,
            "er" => {
                let mut k = keys;
                let n = k.node_count("`n` or `scale`")?;
                let deg = k
                    .take("deg", "a non-negative number", |s| {
                        s.parse().ok().filter(|d: &f64| d.is_finite() && *d >= 0.0)
                    })?
                    .unwrap_or(DEFAULT_DEGREE);
                let (seed, weights) = (k.seed()?, k.weights()?);
                k.finish()?;
                (GraphSpec::Er(ErParams { n, deg, seed }), weights)
            }
            "rgg" => {
                let mut k = keys;
                let n = k.node_count("`n` or `scale`")?;
                let radius = k.take("radius", "a positive number", |s| {
                    s.parse().ok().filter(|r: &f64| r.is_finite() && *r > 0.0)
                })?;
                let (seed, weights) = (k.seed()?, k.weights()?);
                k.finish()?;
                (GraphSpec::Rgg(RggParams { n, radius, seed }), weights)
            }
            "delaunay" => {
                let mut k = keys;
                let n = k.node_count("`n` or `scale`")?;
                let (seed, weights) = (k.seed()?, k.weights()?);
                k.finish()?;
                (GraphSpec::Delaunay(DelaunayParams { n, seed }), weights)
            }
            "grid" => {
                let mut k = keys;
                let side = |s: &str| s.parse().ok().filter(|&x: &u32| x >= 1);
                let w = k.take("w", "a positive integer", side)?;
                let h = k.take("h", "a positive integer", side)?;
                let (Some(w), Some(h)) = (w, h) else {
                    return Err(GenError::MissingKey { kind: "grid", needs: "`w` and `h`" });
                };
                if w as u64 * h as u64 > u32::MAX as u64 {
                    return Err(GenError::BadValue {
                        key: "h",
                        value: h.to_string(),
                        expected: format!("at most {} so that w*h fits 32-bit node ids", u32::MAX / w),
                    });
                }
                let drop = k.take("drop", "a number from 0 to 1", probability)?.unwrap_or(DEFAULT_DROP);
                let (seed, weights) = (k.seed()?, k.weights()?);
                k.finish()?;
                (GraphSpec::Grid(GridParams { w, h, drop, seed }), weights)
            }
            // Only a catalog entry without a parser gets here (the catalog tests parse every entry's example).
            _ => return Err(GenError::UnknownKind { kind, valid: catalog::names() }),
        };
        Ok(GenSpec { graph, weights })
    }
}

/// `rmat` and `kron` (which is `rmat` with the Graph500 preset and no way to change the probabilities).
///
/// The probabilities start from the preset (default `graph500`); any of `a`, `b`, `c`, `d` given replaces the
/// preset's value. If some of `a`, `b`, `c` are given but not `d`, `d` is whatever makes the sum 1. The four must
/// sum to 1 (within 1e-9).
fn parse_rmat(mut k: Keys, kron: bool) -> Result<(GraphSpec, WeightSpec), GenError> {
    let kind = k.kind;
    let scale = k.scale(31)?.ok_or(GenError::MissingKey { kind, needs: "`scale`" })?;
    let edge_factor = k.take("ef", "a positive integer", |s| s.parse().ok().filter(|&x: &u32| x >= 1))?;
    let edge_factor = edge_factor.unwrap_or(DEFAULT_EDGE_FACTOR);
    let mut probs = RmatPreset::Graph500.probabilities();
    if !kron {
        if let Some(preset) = k.take("preset", RmatPreset::NAMES, RmatPreset::from_name)? {
            probs = preset.probabilities();
        }
        let expected = "a probability from 0 to 1";
        let given = [
            k.take("a", expected, probability)?,
            k.take("b", expected, probability)?,
            k.take("c", expected, probability)?,
        ];
        let d = k.take("d", expected, probability)?;
        for (p, g) in probs.iter_mut().zip(given) {
            *p = g.unwrap_or(*p);
        }
        match d {
            Some(d) => probs[3] = d,
            None if given.iter().any(Option::is_some) => {
                probs[3] = 1.0 - probs[0] - probs[1] - probs[2];
                if probs[3] < -1e-9 {
                    return Err(GenError::BadValue {
                        key: "a",
                        value: format!("{}", probs[0]),
                        expected: format!("a+b+c at most 1 (got {})", probs[0] + probs[1] + probs[2]),
                    });
                }
                probs[3] = probs[3].max(0.0);
            }
            None => {}
        }
        let sum: f64 = probs.iter().sum();
        if (sum - 1.0).abs() > 1e-9 {
            return Err(GenError::BadValue {
                key: "d",
                value: format!("{}", probs[3]),
                expected: format!("a+b+c+d = 1 (got {sum})"),
            });
        }
    }
    let (seed, weights) = (k.seed()?, k.weights()?);
    k.finish()?;
    Ok((GraphSpec::Rmat(RmatParams { scale, edge_factor, probabilities: probs, seed }), weights))
}

/// The canonical spec string (without the `gen:` prefix); [`GenSpec::parse`] reads it back to an equal spec.
impl fmt::Display for GenSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.graph {
            GraphSpec::Rmat(p) => {
                write!(f, "rmat:scale={},ef={},", p.scale, p.edge_factor)?;
                match RmatPreset::matching(p.probabilities) {
                    Some(preset) => write!(f, "preset={preset}")?,
                    None => {
                        let [a, b, c, d] = p.probabilities;
                        write!(f, "a={a},b={b},c={c},d={d}")?
                    }
                }
                write!(f, ",seed={}", p.seed)?;
            }
            GraphSpec::Er(p) => write!(f, "er:n={},deg={},seed={}", p.n, p.deg, p.seed)?,
            GraphSpec::Rgg(p) => {
                write!(f, "rgg:n={}", p.n)?;
                if let Some(r) = p.radius {
                    write!(f, ",radius={r}")?;
                }
                write!(f, ",seed={}", p.seed)?;
            }
            GraphSpec::Delaunay(p) => write!(f, "delaunay:n={},seed={}", p.n, p.seed)?,
            GraphSpec::Grid(p) => write!(f, "grid:w={},h={},drop={},seed={}", p.w, p.h, p.drop, p.seed)?,
        }
        if self.weights != WeightSpec::None {
            write!(f, ",weights={}", self.weights)?;
        }
        Ok(())
    }
}
