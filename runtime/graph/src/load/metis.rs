//! METIS graph files (`.graph`): `%` comments, a header `N M [fmt [ncon]]`, then exactly one line per node listing
//! its 1-based neighbours (an empty line is a node without neighbours).
//!
//! `fmt` has up to three binary digits: the last says neighbours come with edge weights (`v w` pairs), the middle
//! says each line starts with `ncon` vertex weights, the first says it starts with a vertex size. Vertex weights
//! and sizes are skipped: graphs here carry edge weights only. `M` counts undirected edges, and every edge is
//! listed from both ends, so the lines must hold `2 M` neighbour entries in all.

use crate::csr::{EdgeList, NodeLabels};
use crate::error::{quote, LoadError};
use crate::load::edges::{one_based, reserve_hint, Parsed, WeightColumn};
use crate::load::lines::{check_node_count, At, Lines};

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    let (n, m, edge_weights, skip) = loop {
        let Some(line) = lines.next_line()? else {
            return Err(LoadError::invalid(&name, "no header line 'nodes edges [fmt [ncon]]'"));
        };
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let n = at.count(f.next(), "the number of nodes")?;
        let m = at.count(f.next(), "the number of edges")?;
        let fmt = f.next();
        let (sizes, vweights, eweights) = match fmt {
            None => (false, false, false),
            Some(tok) if !tok.is_empty() && tok.len() <= 3 && tok.iter().all(|b| matches!(b, b'0' | b'1')) => {
                let digit = |k: usize| tok.len() > k && tok[tok.len() - 1 - k] == b'1';
                (digit(2), digit(1), digit(0))
            }
            Some(tok) => {
                return Err(at.err(format!(
                    "expected a format code of up to three 0/1 digits (e.g. 0, 1, 10, 11, 100), found {}",
                    quote(tok)
                )))
            }
        };
        let ncon = match f.next() {
            None => 1,
            Some(tok) => at.count(Some(tok), "the number of vertex weights (ncon)")?,
        };
        at.end(f, "'nodes edges [fmt [ncon]]'")?;
        let skip = sizes as u64 + if vweights { ncon } else { 0 };
        break (check_node_count(at, n)?, m, eweights, skip);
    };

    let entries_expected = m.saturating_mul(2);
    let mut src: Vec<u32> = Vec::with_capacity(reserve_hint(entries_expected));
    let mut dst: Vec<u32> = Vec::with_capacity(reserve_hint(entries_expected));
    let mut weights = WeightColumn::with_capacity(if edge_weights { reserve_hint(entries_expected) } else { 0 });
    let mut node: u32 = 0;
    while let Some(line) = lines.next_line()? {
        if line.trimmed().starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        if node == n {
            if line.is_blank() {
                continue;
            }
            return Err(at.err(format!("header says {n} nodes but there are more node lines")));
        }
        let mut f = line.fields();
        for k in 0..skip {
            if f.next().is_none() {
                return Err(
                    at.err(format!("expected {skip} vertex size/weight values before the neighbours, found {k}"))
                );
            }
        }
        while let Some(tok) = f.next() {
            let v = one_based(at, at.id(Some(tok), "a neighbour id")?, n)?;
            src.push(node);
            dst.push(v);
            if edge_weights {
                let w = f.next();
                if w.is_none() {
                    return Err(at.err(format!("neighbour {} has no edge weight", v as u64 + 1)));
                }
                weights.push(at, w)?;
            }
        }
        node += 1;
    }
    if node != n {
        return Err(LoadError::invalid(&name, format!("header says {n} nodes but the file has {node} node lines")));
    }
    if src.len() as u64 != entries_expected {
        return Err(LoadError::invalid(
            &name,
            format!(
                "header says {m} edges, so {entries_expected} neighbour entries, but the node lines list {}",
                src.len()
            ),
        ));
    }
    let mut edges = EdgeList::new(n);
    edges.src = src;
    edges.dst = dst;
    edges.labels = NodeLabels::Offset(1);
    if edge_weights {
        edges.weights = Some(weights.finish());
    }
    Ok(Parsed { edges })
}
