//! DIMACS-9 shortest-path writer: `p sp N M` and one `a u v w` line per edge, 1-based. The format requires a
//! weight on every arc, so an unweighted graph is written with weight 1.

use std::io::Write;

use super::{write_weight, Fail};
use crate::csr::Csr;

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    writeln!(out, "c written by irgc-graph")?;
    writeln!(out, "p sp {} {}", g.num_nodes(), g.num_edges())?;
    for v in 0..g.num_nodes() {
        for e in g.edge_range(v) {
            write!(out, "a {} {} ", v as u64 + 1, g.col[e] as u64 + 1)?;
            match &g.weights {
                Some(w) => write_weight(out, w, e)?,
                None => out.write_all(b"1")?,
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
