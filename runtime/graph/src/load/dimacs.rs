//! DIMACS-9 shortest-path files (`.gr`): `c` comments, a `p sp N M` header, then `a u v w` arcs (1-based,
//! directed).
//!
//! Some exports (e.g. the OSM Bremen graphs) drop the header and the comments and write only `a u v w` lines,
//! sometimes 0-based. Without a header the node count is inferred: if any id is 0 the file is 0-based and has
//! `max + 1` nodes, otherwise it is 1-based and has `max` nodes (isolated nodes above the largest id cannot be
//! known and are lost).

use crate::csr::{EdgeList, NodeLabels};
use crate::error::{quote, LoadError};
use crate::load::edges::{one_based, reserve_hint, Parsed, WeightColumn};
use crate::load::lines::{check_node_count, At, Lines};

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    // `Some((n, m))` once the header is read; arcs before any header switch to the header-less variant.
    let mut header: Option<(u32, u64)> = None;
    let mut headerless = false;
    let mut src: Vec<u32> = Vec::new();
    let mut dst: Vec<u32> = Vec::new();
    let mut weights = WeightColumn::default();
    let mut max_id: u64 = 0;
    let mut has_zero = false;
    while let Some(line) = lines.next_line()? {
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let Some(tag) = f.next() else { continue };
        match tag {
            _ if tag[0] == b'c' => continue,
            b"p" => {
                if header.is_some() || headerless {
                    return Err(at.err("a second 'p' line; the header must come once, before the arcs"));
                }
                match f.next() {
                    Some(b"sp") => {}
                    Some(other) => {
                        return Err(
                            at.err(format!("expected 'p sp <nodes> <arcs>', found problem type {}", quote(other)))
                        )
                    }
                    None => return Err(at.err("expected 'p sp <nodes> <arcs>', found the end of the line")),
                }
                let n = at.count(f.next(), "the number of nodes after 'p sp'")?;
                let m = at.count(f.next(), "the number of arcs after 'p sp <nodes>'")?;
                at.end(f, "'p sp <nodes> <arcs>'")?;
                let n = check_node_count(at, n)?;
                src.reserve(reserve_hint(m));
                dst.reserve(reserve_hint(m));
                weights = WeightColumn::with_capacity(reserve_hint(m));
                header = Some((n, m));
            }
            b"a" => {
                let u = at.id(f.next(), "two node ids after 'a'")?;
                let v = at.id(f.next(), "two node ids after 'a'")?;
                weights.push(at, f.next())?;
                at.end(f, "'a <from> <to> <weight>'")?;
                match header {
                    Some((n, m)) => {
                        if src.len() as u64 >= m {
                            return Err(at.err(format!("more arcs than the {m} the header announced")));
                        }
                        src.push(one_based(at, u, n)?);
                        dst.push(one_based(at, v, n)?);
                    }
                    None => {
                        headerless = true;
                        for id in [u, v] {
                            if id > u32::MAX as u64 {
                                return Err(at.err(format!("node id {id} does not fit in 32 bits")));
                            }
                        }
                        max_id = max_id.max(u).max(v);
                        has_zero |= u == 0 || v == 0;
                        src.push(u as u32);
                        dst.push(v as u32);
                    }
                }
            }
            other => {
                return Err(at.err(format!(
                    "unexpected line starting with {}; DIMACS shortest-path files have 'c', 'p' and 'a' lines",
                    quote(other)
                )))
            }
        }
    }
    let (n, base) = match header {
        Some((n, m)) => {
            if src.len() as u64 != m {
                return Err(LoadError::invalid(&name, format!("header says {m} arcs but the file has {}", src.len())));
            }
            (n, 1)
        }
        None if src.is_empty() => return Err(LoadError::invalid(&name, "no 'p sp' header and no 'a' lines")),
        None => {
            let base = if has_zero { 0 } else { 1 };
            let n = u32::try_from(max_id + 1 - base).map_err(|_| {
                LoadError::invalid(&name, format!("node ids up to {max_id} need more nodes than 32-bit ids allow"))
            })?;
            if base == 1 {
                src.iter_mut().chain(dst.iter_mut()).for_each(|id| *id -= 1);
            }
            (n, base)
        }
    };
    let mut edges = EdgeList::new(n);
    edges.src = src;
    edges.dst = dst;
    edges.weights = Some(weights.finish());
    edges.labels = NodeLabels::Offset(base);
    Ok(Parsed { edges })
}
