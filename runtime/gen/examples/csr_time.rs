//! Times `EdgeList::into_csr` on R-MAT edges: `cargo run --release -p irgc-gen --example csr_time -- SCALE`.
#![allow(clippy::print_stdout)]
use irgc_gen::{rmat_edges, RmatParams, RmatPreset};
use irgc_graph::BuildOptions;
use std::time::Instant;

fn main() {
    let scale: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let params = RmatParams::new(scale, 16, RmatPreset::Graph500, 1);
    let t = Instant::now();
    let edges = rmat_edges(&params);
    println!("sampled {} edges in {:.2} s", edges.src.len(), t.elapsed().as_secs_f64());
    let t = Instant::now();
    let csr = edges.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true });
    println!("into_csr: {} edges in {:.2} s", csr.num_edges(), t.elapsed().as_secs_f64());
}
