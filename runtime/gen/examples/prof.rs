#![allow(clippy::print_stdout)]
use irgc_gen::*;
use irgc_graph::BuildOptions;
use std::time::Instant;
fn main() {
    let t = Instant::now();
    let el = rmat_edges(&RmatParams::new(22, 16, RmatPreset::Graph500, 1));
    println!("sample {:.2}", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let g = el.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true });
    println!("csr {:.2} {}", t.elapsed().as_secs_f64(), g.num_edges());
}
