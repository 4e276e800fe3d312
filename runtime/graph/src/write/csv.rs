//! CSV writer: a header `src,dst[,weight]`, then one row per edge in the graph's node labels, so the file reads
//! back (by the CSV loader, or pandas) in the ids the graph was read with. Isolated nodes have no row.

use std::io::Write;

use super::{write_weight, Fail};
use crate::csr::Csr;

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    out.write_all(if g.weights.is_some() { b"src,dst,weight\n" } else { b"src,dst\n" })?;
    for v in 0..g.num_nodes() {
        let lu = g.labels.label(v);
        for e in g.edge_range(v) {
            write!(out, "{lu},{}", g.labels.label(g.col[e]))?;
            if let Some(w) = &g.weights {
                out.write_all(b",")?;
                write_weight(out, w, e)?;
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
