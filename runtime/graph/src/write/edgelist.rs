//! Edge-list (SNAP) writer: a `#` comment with the counts, then `u<TAB>v[<TAB>w]` per edge in the graph's node
//! labels. Isolated nodes have no line and so do not survive a round trip through this format.

use std::io::Write;

use super::{write_weight, Fail};
use crate::csr::Csr;

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    writeln!(out, "# written by irgc-graph")?;
    writeln!(out, "# Nodes: {} Edges: {}", g.num_nodes(), g.num_edges())?;
    for v in 0..g.num_nodes() {
        let lu = g.labels.label(v);
        for e in g.edge_range(v) {
            write!(out, "{lu}\t{}", g.labels.label(g.col[e]))?;
            if let Some(w) = &g.weights {
                out.write_all(b"\t")?;
                write_weight(out, w, e)?;
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
