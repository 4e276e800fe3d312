//! Edge lists whose node ids are arbitrary 64-bit numbers (SNAP, CSV/TSV exports): the raw edges as read, and
//! their numbering as dense 32-bit nodes once the whole file is known.
//!
//! If the ids are exactly `0..=max` (every one used) they are kept as written (`Offset(0)`), likewise exactly
//! `1..=max` (`Offset(1)`); otherwise nodes are numbered densely in order of first appearance and the written ids
//! are kept as `NodeLabels::Explicit`, so outputs can be written back in the file's ids.

use std::collections::HashMap;

use crate::csr::{EdgeList, NodeLabels};
use crate::error::LoadError;
use crate::load::edges::WeightColumn;

/// Edge lists are relabelled from the raw ids only after the whole file is read, so raw ids are kept as `u64`.
pub(crate) struct RawEdges {
    pub src: Vec<u64>,
    pub dst: Vec<u64>,
    pub weights: WeightColumn,
    /// Whether the edges carry weights; a SNAP file fixes it by its first data line after the (possible) header.
    pub weighted: Option<bool>,
    pub max_id: u64,
}

impl RawEdges {
    pub fn new() -> Self {
        RawEdges { src: Vec::new(), dst: Vec::new(), weights: WeightColumn::default(), weighted: None, max_id: 0 }
    }

    /// Appends one edge (its weight, if any, goes to `weights` separately).
    pub fn push_ids(&mut self, u: u64, v: u64) {
        self.src.push(u);
        self.dst.push(v);
        self.max_id = self.max_id.max(u).max(v);
    }

    /// Numbers the nodes (see the module docs) and builds the edge list.
    pub fn into_edges(self, name: &str, header_nodes: Option<u64>) -> Result<EdgeList, LoadError> {
        let RawEdges { src, dst, weights, weighted, max_id } = self;
        let mut edges = EdgeList::new(0);
        if weighted == Some(true) {
            edges.weights = Some(weights.finish());
        }
        if let Some(base) = dense_base(&src, &dst, max_id) {
            // With a header, nodes above the largest id are isolated ones the header announced.
            let n = header_nodes.map_or(max_id + 1 - base, |h| h.max(max_id + 1 - base));
            edges.num_nodes = u32::try_from(n).map_err(|_| too_many(name))?;
            edges.src = src.iter().map(|&x| (x - base) as u32).collect();
            edges.dst = dst.iter().map(|&x| (x - base) as u32).collect();
            edges.labels = NodeLabels::Offset(base);
            return Ok(edges);
        }
        let mut index: HashMap<u64, u32> = HashMap::new();
        let mut ids: Vec<u64> = Vec::new();
        let mut relabel = |x: u64| -> Result<u32, LoadError> {
            if let Some(&i) = index.get(&x) {
                return Ok(i);
            }
            let i = u32::try_from(ids.len()).map_err(|_| too_many(name))?;
            index.insert(x, i);
            ids.push(x);
            Ok(i)
        };
        let mut s = Vec::with_capacity(src.len());
        let mut d = Vec::with_capacity(dst.len());
        for (&u, &v) in src.iter().zip(&dst) {
            s.push(relabel(u)?);
            d.push(relabel(v)?);
        }
        edges.num_nodes = ids.len() as u32;
        edges.src = s;
        edges.dst = d;
        edges.labels = NodeLabels::Explicit(ids);
        Ok(edges)
    }
}

fn too_many(name: &str) -> LoadError {
    LoadError::invalid(name, format!("more than {} distinct node ids; node ids are 32-bit", u32::MAX))
}

/// `Some(0)` if the ids are exactly `0..=max`, `Some(1)` if exactly `1..=max`, else `None`.
fn dense_base(src: &[u64], dst: &[u64], max_id: u64) -> Option<u64> {
    // A dense id range cannot be larger than the number of endpoints (plus one for a missing 0).
    if src.is_empty() {
        return Some(0);
    }
    if max_id >= u32::MAX as u64 || max_id > 2 * src.len() as u64 {
        return None;
    }
    let mut seen = vec![false; max_id as usize + 1];
    for &x in src.iter().chain(dst) {
        seen[x as usize] = true;
    }
    if seen[1..].iter().all(|&s| s) {
        Some(if seen[0] { 0 } else { 1 })
    } else {
        None
    }
}
