//! LDBC Graphalytics writer: `x.v` with one node label per line (in node order, so isolated nodes survive) and
//! `x.e` with `u v [w]` per edge in labels.

use std::io::Write;

use super::{write_weight, Fail};
use crate::csr::Csr;

pub(crate) fn write_vertices(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    for v in 0..g.num_nodes() {
        writeln!(out, "{}", g.labels.label(v))?;
    }
    Ok(())
}

pub(crate) fn write_edges(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    for v in 0..g.num_nodes() {
        let lu = g.labels.label(v);
        for e in g.edge_range(v) {
            write!(out, "{lu} {}", g.labels.label(g.col[e]))?;
            if let Some(w) = &g.weights {
                out.write_all(b" ")?;
                write_weight(out, w, e)?;
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
