//! `irgc info GRAPH`: what a graph is (size, direction, loops, duplicates, weights, degrees, components, diameter)
//! before anything runs on it, so a user can tell whether a program fits the input (CC wants it undirected, SSSP
//! wants weights) and whether the input was read as meant. It loads the graph exactly as `run` does (the same
//! options and cache); the numbers come from [`GraphStats`], this module only renders them.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use irgc_artifact::Skew;
use irgc_graph::stats::{DiameterEstimate, Distribution, WeightRange};
use irgc_graph::{CacheOutcome, GraphStats};
use serde_json::{json, Value};

use crate::graph_input::{self, GraphArgs, LoadedGraph};

#[derive(Args)]
pub struct InfoArgs {
    /// The graph: a file in any format `run` reads (compressed or not), or `gen:SPEC`.
    graph: String,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: GraphArgs,
}

/// The widest bar of the degree histogram, in characters.
const BAR_WIDTH: u64 = 40;

pub fn run(args: &InfoArgs) -> Result<ExitCode> {
    let g = graph_input::load(&args.graph, &args.input)?;
    let format = format_name(args);
    let start = Instant::now();
    let s = GraphStats::of(&g.csr);
    let analysis = start.elapsed();
    if args.json {
        println!("{}", serde_json::to_string(&to_json(&g, &format, &s, analysis))?);
    } else {
        print!("{}", report(&g, &format, &s, analysis));
    }
    Ok(ExitCode::SUCCESS)
}

/// The format the graph was read as (`--format`, else as the loader detects it), or `generated`.
fn format_name(args: &InfoArgs) -> String {
    if args.graph.starts_with("gen:") {
        return "generated".into();
    }
    let format = args.input.format.map_or_else(|| irgc_graph::detect_format(Path::new(&args.graph)), Ok);
    format.map_or_else(|_| "unknown".into(), |f| f.name().to_string())
}

/// Undirected edges of a symmetric graph: each pair is stored twice, a self loop once.
fn undirected_edges(s: &GraphStats) -> u64 {
    (s.edges - s.self_loops) / 2 + s.self_loops
}

/// `1234567` as `1,234,567`.
fn grouped(x: u64) -> String {
    let digits = x.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn cache_note(g: &LoadedGraph) -> &'static str {
    match g.cache {
        Some(CacheOutcome::Hit) => " (from the cache)",
        Some(CacheOutcome::Built | CacheOutcome::Rebuilt) => " (cache written)",
        None => "",
    }
}

fn weights_text(w: &Option<WeightRange>) -> String {
    match w {
        None => "none".into(),
        Some(WeightRange::Int { min, max }) => format!("integers, {min} to {max}"),
        Some(WeightRange::Float { min, max, nan }) => {
            let range = match (min, max) {
                (Some(a), Some(b)) => format!("{a} to {b}"),
                _ => "no numbers".into(),
            };
            let nan = if *nan > 0 { format!(" ({} NaN)", grouped(*nan)) } else { String::new() };
            format!("floats, {range}{nan}")
        }
    }
}

fn distribution_text(d: &Distribution) -> String {
    format!("min {}, median {}, max {}, mean {:.2}", grouped(d.min), grouped(d.median), grouped(d.max), d.mean)
}

fn diameter_text(d: &Option<DiameterEstimate>, symmetric: bool) -> String {
    let Some(d) = d else { return "none (no nodes)".into() };
    let how = if symmetric { "in hops" } else { "in hops, ignoring edge direction" };
    if d.lower == d.upper {
        format!("{} {how} (exact: {} BFS sweeps bound it from both sides)", grouped(d.lower), d.sweeps)
    } else {
        format!(
            "at least {} {how} (a lower bound from {} BFS sweeps; at most {})",
            grouped(d.lower),
            d.sweeps,
            grouped(d.upper)
        )
    }
}

/// The log2-binned degree histogram as a text bar chart, one line per bin.
fn histogram_text(d: &Distribution, out: &mut String) {
    let top = d.histogram.iter().copied().max().unwrap_or(0).max(1);
    for (k, &count) in d.histogram.iter().enumerate() {
        let (lo, hi) = Distribution::bin_range(k);
        let label = if lo == hi { grouped(lo) } else { format!("{}-{}", grouped(lo), grouped(hi)) };
        // Any non-empty bin gets at least one mark, so rare degrees stay visible.
        let len = if count == 0 { 0 } else { (count * BAR_WIDTH).div_ceil(top) };
        let bar = "#".repeat(len as usize);
        let _ = writeln!(out, "  {label:>15} | {bar:<w$} {}", grouped(count), w = BAR_WIDTH as usize);
    }
}

fn report(g: &LoadedGraph, format: &str, s: &GraphStats, analysis: Duration) -> String {
    let mut o = String::new();
    let mut line = |k: &str, v: String| {
        let _ = writeln!(o, "{k:<17}{v}");
    };
    line("graph", format!("{} ({format})", g.name));
    line("nodes", grouped(s.nodes));
    let edges = if s.symmetric {
        format!("{} stored ({} undirected)", grouped(s.edges), grouped(undirected_edges(s)))
    } else {
        format!("{} directed", grouped(s.edges))
    };
    line("edges", edges);
    line(
        "direction",
        if s.symmetric { "symmetric (undirected)" } else { "directed (some edge has no reverse)" }.into(),
    );
    line("self loops", grouped(s.self_loops));
    line("duplicate edges", grouped(s.duplicate_edges));
    line("isolated nodes", grouped(s.isolated_nodes));
    line("weights", weights_text(&s.weights));
    line(if s.symmetric { "degree" } else { "out-degree" }, distribution_text(&s.out_degree));
    if let Some(d) = &s.in_degree {
        line("in-degree", distribution_text(d));
    }
    let share = if s.nodes == 0 { 0.0 } else { 100.0 * s.largest_component as f64 / s.nodes as f64 };
    let kind = if s.symmetric { "connected" } else { "weakly connected" };
    line(
        "components",
        format!(
            "{} ({kind}); the largest has {} nodes ({share:.1}%)",
            grouped(s.components),
            grouped(s.largest_component)
        ),
    );
    line("diameter", diameter_text(&s.diameter, s.symmetric));
    line("gpu inner loops", schedules_text(s).into());
    let _ = writeln!(o, "{} histogram (log2 bins):", if s.symmetric { "degree" } else { "out-degree" });
    histogram_text(&s.out_degree, &mut o);
    let _ = writeln!(
        o,
        "loaded in {:.2} s{}, analysed in {:.2} s",
        g.load_time.as_secs_f64(),
        cache_note(g),
        analysis.as_secs_f64()
    );
    o
}

/// How the GPU runs a program's inner loops over a node's edges on this graph: its class for the
/// nested-parallelism schedules ([`Skew::of`]).
fn schedules_class(s: &GraphStats) -> u64 {
    Skew::of(s.nodes, s.edges, s.out_degree.max)
}

fn schedules_text(s: &GraphStats) -> &'static str {
    match schedules_class(s) {
        Skew::SKEWED => {
            "spread over a warp or block where a node has many edges (the largest degree is at least 32 and 4x the \
             mean)"
        }
        Skew::WIDE => {
            "spread over a warp or block in worklist sweeps, each in its thread elsewhere (some node has 32 edges, \
             but the largest degree is under 4x the mean)"
        }
        _ => "each in its thread (no node has 32 edges)",
    }
}

fn distribution_json(d: &Distribution) -> Value {
    let bins: Vec<Value> = d
        .histogram
        .iter()
        .enumerate()
        .map(|(k, &count)| {
            let (lo, hi) = Distribution::bin_range(k);
            json!({ "min": lo, "max": hi, "count": count })
        })
        .collect();
    json!({ "min": d.min, "median": d.median, "max": d.max, "mean": d.mean, "histogram": bins })
}

fn to_json(g: &LoadedGraph, format: &str, s: &GraphStats, analysis: Duration) -> Value {
    let weights = match &s.weights {
        None => Value::Null,
        Some(WeightRange::Int { min, max }) => json!({ "type": "int", "min": min, "max": max }),
        Some(WeightRange::Float { min, max, nan }) => json!({ "type": "float", "min": min, "max": max, "nan": nan }),
    };
    let diameter = match &s.diameter {
        None => Value::Null,
        Some(d) => json!({
            "lower_bound": d.lower,
            "upper_bound": d.upper,
            "exact": d.lower == d.upper,
            "bfs_sweeps": d.sweeps,
            "ignores_direction": !s.symmetric,
        }),
    };
    json!({
        "graph": g.name,
        "format": format,
        "nodes": s.nodes,
        "edges": s.edges,
        "symmetric": s.symmetric,
        "undirected_edges": if s.symmetric { json!(undirected_edges(s)) } else { Value::Null },
        "self_loops": s.self_loops,
        "duplicate_edges": s.duplicate_edges,
        "isolated_nodes": s.isolated_nodes,
        "weights": weights,
        "out_degree": distribution_json(&s.out_degree),
        "in_degree": s.in_degree.as_ref().map_or(Value::Null, distribution_json),
        "components": { "count": s.components, "largest": s.largest_component, "weakly": !s.symmetric },
        "diameter": diameter,
        "gpu_inner_loops": Skew::name(schedules_class(s)),
        "seconds": { "load": g.load_time.as_secs_f64(), "analysis": analysis.as_secs_f64() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
