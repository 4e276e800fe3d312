//! MatrixMarket writer: `coordinate`, `general` (every stored edge as an entry), `pattern`, `integer` or `real` by
//! the weights, 1-based.

use std::io::Write;

use super::{write_weight, Fail};
use crate::csr::{Csr, Weights};

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    let field = match &g.weights {
        None => "pattern",
        Some(Weights::Int(_) | Weights::U32(_)) => "integer",
        Some(Weights::Float(_)) => "real",
    };
    writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
    writeln!(out, "% written by irgc-graph")?;
    writeln!(out, "{} {} {}", g.num_nodes(), g.num_nodes(), g.num_edges())?;
    for v in 0..g.num_nodes() {
        for e in g.edge_range(v) {
            write!(out, "{} {}", v as u64 + 1, g.col[e] as u64 + 1)?;
            if let Some(w) = &g.weights {
                out.write_all(b" ")?;
                write_weight(out, w, e)?;
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
