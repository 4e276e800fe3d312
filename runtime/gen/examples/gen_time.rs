//! Times one generator spec: `cargo run --release -p irgc-gen --example gen_time -- rmat:scale=22,ef=16`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use irgc_gen::{generate, GenSpec};

fn main() {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "rmat:scale=22,ef=16".to_string());
    let spec = match GenSpec::parse(&spec) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let g = generate(&spec).expect("generate");
    let max_degree = (0..g.num_nodes()).map(|v| g.degree(v)).max().unwrap_or(0);
    println!(
        "{spec}: {} nodes, {} directed edges, max degree {max_degree}, {:.2} s",
        g.num_nodes(),
        g.num_edges(),
        start.elapsed().as_secs_f64()
    );
}
