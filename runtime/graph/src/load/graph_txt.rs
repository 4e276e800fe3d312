//! WebGraph ASCII graphs (`.graph-txt`), the text form of the LAW web and social graphs (what WebGraph's
//! `ASCIIGraph` writes): a first line with the node count `n`, then exactly `n` lines, line `i` listing the successors
//! of node `i` (0-based) separated by blanks; an empty line is a node without successors. Directed.
//!
//! Blank lines after the `n` node lines are tolerated (editors add them); anything else there is an error, as is a
//! file with fewer than `n` node lines, since either means the count and the lines disagree.

use crate::csr::{EdgeList, NodeLabels};
use crate::error::LoadError;
use crate::load::edges::Parsed;
use crate::load::lines::{check_node_count, At, Lines};

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    let Some(first) = lines.next_line()? else {
        return Err(LoadError::invalid(&name, "empty file"));
    };
    let at = At { file: &name, line: first.no };
    let mut f = first.fields();
    let n = at.count(f.next(), "the number of nodes on the first line")?;
    at.end(f, "the number of nodes on the first line")?;
    let n = check_node_count(at, n)?;
    let mut src: Vec<u32> = Vec::new();
    let mut dst: Vec<u32> = Vec::new();
    let mut node: u32 = 0;
    while let Some(line) = lines.next_line()? {
        let at = At { file: &name, line: line.no };
        if node == n {
            if line.is_blank() {
                continue;
            }
            return Err(at.err(format!(
                "the first line says {n} nodes, so lines 2 to {} list their successors, but here is another one",
                n as u64 + 1
            )));
        }
        for tok in line.fields() {
            let v = at.id(Some(tok), "a successor (node id)")?;
            if v >= n as u64 {
                return Err(at.err(format!(
                    "successor {v} of node {node} is out of range: the first line says {n} nodes (0 to {})",
                    n as u64 - 1
                )));
            }
            src.push(node);
            dst.push(v as u32);
        }
        node += 1;
    }
    if node != n {
        return Err(LoadError::invalid(
            &name,
            format!("the first line says {n} nodes but only {node} successor lines follow (an empty line is a node without successors)"),
        ));
    }
    let mut edges = EdgeList::new(n);
    edges.src = src;
    edges.dst = dst;
    edges.labels = NodeLabels::Offset(0);
    Ok(Parsed { edges })
}
