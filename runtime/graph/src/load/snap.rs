//! Plain edge lists (SNAP `.txt`, `.tsv`, `.el`, `.wel`, ...): `#` or `%` comment lines, then `u v [w]` per line,
//! separated by tabs or spaces, directed as written.
//!
//! Ids are arbitrary 64-bit numbers. If they are exactly `0..=max` (every one used) they are kept as written
//! (`Offset(0)`), likewise exactly `1..=max` (`Offset(1)`); otherwise nodes are numbered densely in order of first
//! appearance and the written ids are kept as `NodeLabels::Explicit`.
//!
//! Header rule: some files (e.g. SNAP's email-Enron) start with a line `N M`. The first data line is taken as such a
//! header when it has exactly two numbers, `M` equals the number of data lines after it, and no id after it exceeds
//! `N`; the header is then dropped (it only announces counts, and `N` adds isolated nodes above the largest id). A real first edge matches this only in contrived
//! files (e.g. `5 1` followed by exactly one edge between ids at most 5). A header announcing no edges is not
//! recognised (a lone line `5 0` is the edge 5 -> 0).

use std::collections::HashMap;

use crate::csr::{EdgeList, NodeLabels};
use crate::error::LoadError;
use crate::load::edges::{Parsed, WeightColumn};
use crate::load::lines::{At, Lines};

/// Edge lists are relabelled from the raw ids only after the whole file is read, so raw ids are kept as `u64`.
struct RawEdges {
    src: Vec<u64>,
    dst: Vec<u64>,
    weights: WeightColumn,
    /// Whether lines carry a third field; fixed by the first data line after the (possible) header.
    weighted: Option<bool>,
    max_id: u64,
}

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    // The first data line is kept aside until we know whether it is a header.
    let mut first: Option<(u64, u64, u64, Option<Vec<u8>>)> = None;
    let mut raw =
        RawEdges { src: Vec::new(), dst: Vec::new(), weights: WeightColumn::default(), weighted: None, max_id: 0 };
    while let Some(line) = lines.next_line()? {
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let u = at.id(f.next(), "two node ids")?;
        let v = at.id(f.next(), "two node ids")?;
        let w = f.next();
        at.end(f, "'from to [weight]'")?;
        if first.is_none() {
            first = Some((line.no, u, v, w.map(<[u8]>::to_vec)));
            continue;
        }
        raw.push(at, u, v, w)?;
    }
    let Some((first_no, a, b, first_w)) = first else {
        return Err(LoadError::invalid(&name, "no edges (only comments and blank lines)"));
    };
    let is_header = first_w.is_none() && b > 0 && b == raw.src.len() as u64 && raw.max_id <= a;
    if !is_header {
        let at = At { file: &name, line: first_no };
        raw.push_front(at, a, b, first_w.as_deref())?;
    }
    let labels_hint = if is_header { Some(a) } else { None };
    Ok(Parsed { edges: raw.into_edges(&name, labels_hint)?, undirected: false })
}

impl RawEdges {
    fn push(&mut self, at: At<'_>, u: u64, v: u64, w: Option<&[u8]>) -> Result<(), LoadError> {
        let weighted = *self.weighted.get_or_insert(w.is_some());
        match (weighted, w) {
            (true, None) => {
                return Err(at.err("expected an edge weight like the lines before, found the end of the line"))
            }
            (false, Some(_)) => {
                return Err(
                    at.err("found an edge weight, but earlier lines have none; every line needs the same fields")
                )
            }
            (true, Some(_)) => self.weights.push(at, w)?,
            (false, None) => {}
        }
        self.src.push(u);
        self.dst.push(v);
        self.max_id = self.max_id.max(u).max(v);
        Ok(())
    }

    /// Puts the first data line back in front once it is known not to be a header.
    fn push_front(&mut self, at: At<'_>, u: u64, v: u64, w: Option<&[u8]>) -> Result<(), LoadError> {
        let rest = std::mem::replace(
            self,
            RawEdges { src: Vec::new(), dst: Vec::new(), weights: WeightColumn::default(), weighted: None, max_id: 0 },
        );
        let follower = rest.weighted;
        self.push(at, u, v, w)?;
        if let Some(f) = follower {
            if Some(f) != self.weighted {
                let msg = if f {
                    "has no edge weight, but the lines after it have one"
                } else {
                    "has an edge weight, but the lines after it have none"
                };
                return Err(at.err(format!("this line {msg}; every line needs the same fields")));
            }
        }
        self.src.extend_from_slice(&rest.src);
        self.dst.extend_from_slice(&rest.dst);
        self.max_id = self.max_id.max(rest.max_id);
        if rest.weighted == Some(true) {
            self.weights.append(rest.weights);
        }
        Ok(())
    }

    /// Numbers the nodes (see the module docs) and builds the edge list.
    fn into_edges(self, name: &str, header_nodes: Option<u64>) -> Result<EdgeList, LoadError> {
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
