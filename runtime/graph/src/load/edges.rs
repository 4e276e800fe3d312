//! What every text parser shares: the result type, a weight column that starts as integers and widens to floats
//! at the first non-integer value, and a guard on header counts used to pre-size vectors.

use crate::csr::{EdgeList, Weights};
use crate::error::{quote, LoadError};
use crate::load::lines::{parse_f64, parse_i64, At};

/// A parser's result: the edges in input order (an undirected format's edges already in both directions).
#[derive(Debug)]
pub(crate) struct Parsed {
    pub edges: EdgeList,
}

/// Vectors are pre-sized from header counts only up to this many entries: a lying header then costs nothing, and
/// a true one only a few doublings.
pub(crate) const MAX_RESERVE: u64 = 1 << 22;

pub(crate) fn reserve_hint(count: u64) -> usize {
    count.min(MAX_RESERVE) as usize
}

/// Edge weights as read, integers until a value needs a float.
#[derive(Debug, Default)]
pub(crate) struct WeightColumn {
    ints: Vec<i64>,
    floats: Option<Vec<f64>>,
}

/// A float weight field (`what` names it in messages): a finite number. NaN never parses (see [`parse_f64`]), and
/// an infinity (`inf`, or `1e400` beyond `f64`) would make every sum with it infinite and answers meaningless.
pub(crate) fn float_weight(at: At<'_>, tok: &[u8], what: &str) -> Result<f64, LoadError> {
    let v = parse_f64(tok).ok_or_else(|| at.err(format!("expected {what}, found {}", quote(tok))))?;
    if !v.is_finite() {
        return Err(at.err(format!("{what} must be a finite number, found {} (infinite as an f64)", quote(tok))));
    }
    Ok(v)
}

impl WeightColumn {
    pub fn with_capacity(n: usize) -> Self {
        WeightColumn { ints: Vec::with_capacity(n), floats: None }
    }

    pub fn push(&mut self, at: At<'_>, tok: Option<&[u8]>) -> Result<(), LoadError> {
        let tok = tok.ok_or_else(|| at.err("expected an edge weight, found the end of the line"))?;
        if let Some(f) = &mut self.floats {
            f.push(float_weight(at, tok, "an edge weight")?);
            return Ok(());
        }
        if let Some(v) = parse_i64(tok) {
            self.ints.push(v);
            return Ok(());
        }
        let v = float_weight(at, tok, "an edge weight")?;
        let mut f: Vec<f64> = self.ints.drain(..).map(|i| i as f64).collect();
        f.push(v);
        self.floats = Some(f);
        Ok(())
    }

    /// A column that holds floats from the start (MatrixMarket `real`).
    pub fn floats_with_capacity(n: usize) -> Self {
        WeightColumn { ints: Vec::new(), floats: Some(Vec::with_capacity(n)) }
    }

    pub fn push_int(&mut self, v: i64) {
        match &mut self.floats {
            Some(f) => f.push(v as f64),
            None => self.ints.push(v),
        }
    }

    pub fn push_float(&mut self, v: f64) {
        if self.floats.is_none() {
            self.floats = Some(self.ints.drain(..).map(|i| i as f64).collect());
        }
        if let Some(f) = &mut self.floats {
            f.push(v);
        }
    }

    /// Negates the last weight (the mirror of a skew-symmetric entry).
    pub fn negate_last(&mut self) {
        match &mut self.floats {
            Some(f) => {
                if let Some(x) = f.last_mut() {
                    *x = -*x;
                }
            }
            None => {
                if let Some(x) = self.ints.last_mut() {
                    *x = x.wrapping_neg();
                }
            }
        }
    }

    /// Pushes a weight that is already a number (the reverse copy of an undirected edge).
    pub fn repeat_last(&mut self) {
        match &mut self.floats {
            Some(f) => f.extend_from_within(f.len().saturating_sub(1)..),
            None => self.ints.extend_from_within(self.ints.len().saturating_sub(1)..),
        }
    }

    /// Appends another column after this one.
    pub fn append(&mut self, other: WeightColumn) {
        match other.floats {
            Some(f) => f.into_iter().for_each(|v| self.push_float(v)),
            None => other.ints.into_iter().for_each(|v| self.push_int(v)),
        }
    }

    pub fn finish(self) -> Weights {
        match self.floats {
            Some(f) => Weights::Float(f.into()),
            None => Weights::Int(self.ints.into()),
        }
    }
}

/// Checks a 1-based id against `1..=n` and returns it 0-based.
pub(crate) fn one_based(at: At<'_>, id: u64, n: u32) -> Result<u32, LoadError> {
    if id == 0 || id > n as u64 {
        return Err(if n == 0 {
            at.err(format!("node id {id} is out of range: the header says the graph has no nodes"))
        } else {
            at.err(format!("node id {id} is out of range 1..={n}"))
        });
    }
    Ok((id - 1) as u32)
}
