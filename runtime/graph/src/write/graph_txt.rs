//! WebGraph ASCII writer: the node count, then one line of successors per node, numbered 0-based in node order
//! (the format has no ids of its own, so labels are not written). It cannot hold weights, so weighted graphs are
//! refused rather than silently written without them.

use std::io::Write;

use super::Fail;
use crate::csr::Csr;

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    if g.weights.is_some() {
        return Err(Fail::Unsupported(
            "the WebGraph ASCII format (graph-txt) has no edge weights; this graph has them".into(),
        ));
    }
    writeln!(out, "{}", g.num_nodes())?;
    for v in 0..g.num_nodes() {
        let mut sep = "";
        for &d in g.neighbors(v) {
            write!(out, "{sep}{d}")?;
            sep = " ";
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}
