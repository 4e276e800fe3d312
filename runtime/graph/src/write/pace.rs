//! PACE 2016 writer: `p tw N M` and one `u v` line per undirected edge with `u < v`, 1-based. PACE graphs are
//! simple and unweighted: the undirected view is written (self loops and weights are dropped).

use std::io::Write;

use super::{undirected_view, Fail};
use crate::csr::Csr;

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    let u = undirected_view(g);
    writeln!(out, "c written by irgc-graph")?;
    writeln!(out, "p tw {} {}", u.num_nodes(), u.num_edges() / 2)?;
    for v in 0..u.num_nodes() {
        for &d in u.neighbors(v).iter().filter(|&&d| d > v) {
            writeln!(out, "{} {}", v as u64 + 1, d as u64 + 1)?;
        }
    }
    Ok(())
}
