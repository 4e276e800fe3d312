//! PACE 2016 tree-width files (`.gr`): `c` comments, a `p tw N M` header, then one `u v` line per undirected edge
//! (1-based). Both directions are stored; a self loop is stored once.

use crate::csr::{EdgeList, NodeLabels};
use crate::error::{quote, LoadError};
use crate::load::edges::{one_based, reserve_hint, Parsed};
use crate::load::lines::{check_node_count, At, Lines};

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    let mut header: Option<(u32, u64)> = None;
    let mut src: Vec<u32> = Vec::new();
    let mut dst: Vec<u32> = Vec::new();
    let mut seen: u64 = 0;
    while let Some(line) = lines.next_line()? {
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let Some(first) = f.next() else { continue };
        if first[0] == b'c' {
            continue;
        }
        let Some((n, m)) = header else {
            if first != b"p" || f.next() != Some(b"tw") {
                return Err(at.err(format!("expected the header 'p tw <nodes> <edges>', found {}", quote(line.bytes))));
            }
            let n = at.count(f.next(), "the number of nodes after 'p tw'")?;
            let m = at.count(f.next(), "the number of edges after 'p tw <nodes>'")?;
            at.end(f, "'p tw <nodes> <edges>'")?;
            let n = check_node_count(at, n)?;
            src.reserve(reserve_hint(m.saturating_mul(2)));
            dst.reserve(reserve_hint(m.saturating_mul(2)));
            header = Some((n, m));
            continue;
        };
        if first == b"p" {
            return Err(at.err("a second 'p' line; the header must come once, before the edges"));
        }
        seen += 1;
        if seen > m {
            return Err(at.err(format!("more edges than the {m} the header announced")));
        }
        let u = one_based(at, at.id(Some(first), "two node ids")?, n)?;
        let v = one_based(at, at.id(f.next(), "two node ids")?, n)?;
        at.end(f, "two node ids")?;
        src.push(u);
        dst.push(v);
        if u != v {
            src.push(v);
            dst.push(u);
        }
    }
    let Some((n, m)) = header else {
        return Err(LoadError::invalid(&name, "no 'p tw <nodes> <edges>' header"));
    };
    if seen != m {
        return Err(LoadError::invalid(&name, format!("header says {m} edges but the file has {seen}")));
    }
    let mut edges = EdgeList::new(n);
    edges.src = src;
    edges.dst = dst;
    edges.labels = NodeLabels::Offset(1);
    Ok(Parsed { edges })
}
