//! Times loading graph files: `cargo run --release -p irgc-graph --example load_time -- FILE... [--cache DIR]`.
//! With `--cache`, each file is loaded twice through the binary cache (the second load is a cache hit).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use irgc_graph::{load_graph, load_graph_cached, LoadOptions};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let cache: Option<PathBuf> = args.iter().position(|a| a == "--cache").map(|i| {
        let dir = args.get(i + 1).cloned().unwrap_or_else(|| ".".into());
        args.drain(i..(i + 2).min(args.len()));
        PathBuf::from(dir)
    });
    let opts = LoadOptions::default();
    for arg in &args {
        let path = Path::new(arg);
        let runs = if cache.is_some() { 2 } else { 1 };
        for _ in 0..runs {
            let t = Instant::now();
            let result = match &cache {
                Some(dir) => load_graph_cached(path, &opts, dir, &mut |_, _| {}).map(|(g, o)| (g, format!("{o:?}"))),
                None => load_graph(path, &opts, &mut |_, _| {}).map(|g| (g, "parsed".to_string())),
            };
            match result {
                Ok((g, how)) => println!(
                    "{arg}: {} nodes, {} edges, weights {}, {how}, {:.3} s",
                    g.num_nodes(),
                    g.num_edges(),
                    g.weights.is_some(),
                    t.elapsed().as_secs_f64()
                ),
                Err(e) => eprintln!("{e}"),
            }
        }
    }
}
