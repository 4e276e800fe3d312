//! METIS writer: header `N M [1]`, then one line per node with its 1-based neighbours (and integer edge weights,
//! format code 1). METIS graphs are undirected and loop-free, so the undirected view is written; METIS weights
//! are integers, so float weights are refused.

use std::io::Write;

use super::{undirected_view, Fail};
use crate::csr::{Csr, Weights};

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    if let Some(Weights::Float(_)) = g.weights {
        return Err(Fail::Unsupported("METIS edge weights must be integers; this graph has float weights".into()));
    }
    let u = undirected_view(g);
    let weights = u.weights.as_ref().and_then(Weights::ints);
    writeln!(out, "% written by irgc-graph")?;
    write!(out, "{} {}", u.num_nodes(), u.num_edges() / 2)?;
    out.write_all(if weights.is_some() { b" 1\n" } else { b"\n" })?;
    for v in 0..u.num_nodes() {
        let mut sep = "";
        for e in u.edge_range(v) {
            write!(out, "{sep}{}", u.col[e] as u64 + 1)?;
            if let Some(w) = &weights {
                write!(out, " {}", w[e])?;
            }
            sep = " ";
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}
