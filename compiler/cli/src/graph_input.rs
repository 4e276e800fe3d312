//! The `--graph` input of `irgc run`: a file (through the binary CSR cache) or a generator spec (`gen:SPEC`), with
//! the load options every command that reads a graph shares.
//!
//! Loading is the slow part of a first run on a large graph, so it gets a progress bar, but only when it is slow
//! (over a second) and someone is watching (stderr is a terminal): scripts and CI logs stay clean.

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use irgc_graph::{load::splitmix64, Weights};
use irgc_graph::{
    load_graph, load_graph_cached, BuildOptions, CacheOutcome, Columns, Csr, Format, LoadOptions, WeightSpec,
};

pub use irgc_driver::graph::parse_weights;
use irgc_driver::graph::writable;
pub(crate) use irgc_driver::graph::{cache_dir, fits_in_memory};

/// How to read the input graph.
#[derive(Args, Debug, Clone)]
pub struct GraphArgs {
    /// Add the reverse of every edge (self loops and duplicates are then dropped too).
    #[arg(long)]
    pub symmetrize: bool,
    /// Drop edges from a node to itself.
    #[arg(long)]
    pub drop_self_loops: bool,
    /// Keep one edge per (source, destination) pair: the first in the file.
    #[arg(long)]
    pub dedupe: bool,
    /// The input format (default: from the file name, then the content): mtx, dimacs, pace, metis, edgelist, csv
    /// (also .tsv), graph-txt (WebGraph ASCII), ldbc, galois.
    #[arg(long, value_name = "F")]
    pub format: Option<Format>,
    /// For CSV/TSV tables (and edge lists): the columns holding each edge's source, destination and, optionally,
    /// weight, each a header name or a 0-based index: `--columns from,to,cost`, `--columns 1,2`. Without a weight
    /// column the edges are unweighted. Default: the first two columns, and the third as the weight if it is a
    /// number. A first row whose source and destination are not integers is a header.
    #[arg(long, value_name = "SRC,DST[,WEIGHT]")]
    pub columns: Option<Columns>,
    /// Replace the edge weights: `const:W`, or `random:LO:HI[:SEED]` (uniform integers, both directions of an
    /// undirected edge equal).
    #[arg(long, value_name = "SPEC", value_parser = parse_weights)]
    pub weights: Option<WeightSpec>,
    /// Neither read nor write the binary graph cache (in $XDG_CACHE_HOME/irgc or ~/.cache/irgc).
    #[arg(long)]
    pub no_cache: bool,
}

/// A loaded graph and how it was obtained.
pub struct LoadedGraph {
    pub csr: Csr,
    /// The name used in messages: the file name, or the `gen:` spec.
    pub name: String,
    pub load_time: Duration,
    /// How the cache was used, if it was.
    pub cache: Option<CacheOutcome>,
}

/// A progress callback that shows a bar on a terminal once a load has taken more than a second.
struct Progress {
    start: Instant,
    bar: Option<ProgressBar>,
    tty: bool,
    label: String,
}

impl Progress {
    fn new(label: &str) -> Self {
        Progress { start: Instant::now(), bar: None, tty: std::io::stderr().is_terminal(), label: label.to_string() }
    }

    fn update(&mut self, done: u64, total: u64) {
        if self.bar.is_none() && self.tty && total > 0 && self.start.elapsed() > Duration::from_secs(1) {
            let bar = ProgressBar::new(total);
            let style = ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message(format!("loading {}", self.label));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Loads `--graph SPEC`: `gen:...` is generated, anything else is a file.
#[allow(clippy::print_stderr)]
pub fn load(spec: &str, args: &GraphArgs) -> Result<LoadedGraph> {
    let start = Instant::now();
    if let Some(gen) = spec.strip_prefix("gen:") {
        if args.format.is_some() {
            bail!("--format applies to graph files, not to generated graphs (--graph {spec})");
        }
        if args.columns.is_some() {
            bail!("--columns applies to graph files, not to generated graphs (--graph {spec})");
        }
        let parsed = irgc_gen::GenSpec::parse(gen).map_err(|e| anyhow!("--graph {spec}: {e}"))?;
        fits_in_memory(spec, &parsed)?;
        let what = format!("generating {spec}");
        let spinner = crate::spinner::Spinner::start(Box::new(move || what.clone()));
        let mut csr = irgc_gen::generate(&parsed).map_err(|e| anyhow!("--graph {spec}: {e}"))?;
        drop(spinner);
        if let Some(w) = args.weights {
            set_weights(&mut csr, w);
        }
        // Generated graphs are undirected already; --symmetrize changes nothing.
        return Ok(LoadedGraph { csr, name: spec.to_string(), load_time: start.elapsed(), cache: None });
    }
    let path = Path::new(spec);
    let pipe = is_named_pipe(path);
    if pipe {
        // Opening a FIFO blocks until something writes to it (as for `cat`): say so rather than seem to hang.
        eprintln!(
            "note: {spec} is a pipe; reading the graph from it blocks until a program writes to it (Ctrl-C stops)"
        );
    }
    let name = path.file_name().map_or(spec.to_string(), |n| n.to_string_lossy().into_owned());
    let opts = LoadOptions {
        format: args.format,
        build: BuildOptions {
            symmetrize: args.symmetrize,
            drop_self_loops: args.symmetrize || args.drop_self_loops,
            dedupe: args.symmetrize || args.dedupe,
        },
        weights: args.weights.unwrap_or_default(),
        columns: args.columns.clone(),
    };
    let mut progress = Progress::new(&name);
    // A pipe can be read once: it is neither hashed for the cache key nor cached.
    let dir = if args.no_cache || pipe {
        None
    } else {
        match cache_dir() {
            Some(d) if writable(&d) => Some(d),
            Some(d) => {
                eprintln!("note: cannot write the graph cache in {}; loading without it", d.display());
                None
            }
            None => {
                eprintln!("note: neither XDG_CACHE_HOME nor HOME is set; loading without the graph cache");
                None
            }
        }
    };
    let result = match &dir {
        Some(d) => load_graph_cached(path, &opts, d, &mut |a, b| progress.update(a, b)).map(|(g, o)| (g, Some(o))),
        None => load_graph(path, &opts, &mut |a, b| progress.update(a, b)).map(|g| (g, None)),
    };
    progress.finish();
    // The load error already names the file (and the OS error); anyhow's context chain would repeat it.
    let (csr, cache) = result.map_err(|e| anyhow!("cannot load the graph: {e}"))?;
    Ok(LoadedGraph { csr, name, load_time: start.elapsed(), cache })
}

/// Whether `path` is a FIFO (a named pipe, or a process substitution's `/dev/fd/N`).
fn is_named_pipe(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Applies `--weights` to a generated graph, with the loaders' rule that both directions of an edge agree (the
/// random weight is a hash of the seed and the unordered endpoint pair).
fn set_weights(g: &mut Csr, spec: WeightSpec) {
    let m = g.col.len();
    g.weights = match spec {
        WeightSpec::AsFile => return,
        WeightSpec::Constant(c) => Some(Weights::Int(vec![c; m].into())),
        WeightSpec::UniformInt { lo, hi, seed } => {
            let src = g.sources();
            let span = (hi as i128 - lo as i128 + 1) as u128;
            let w = (0..m)
                .map(|e| {
                    let (a, b) = (src[e].min(g.col[e]) as u64, src[e].max(g.col[e]) as u64);
                    let x = splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b);
                    (lo as i128 + (x as u128 % span) as i128) as i64
                })
                .collect();
            Some(Weights::Int(w))
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_specs() {
        assert_eq!(parse_weights("const:3"), Ok(WeightSpec::Constant(3)));
        assert_eq!(parse_weights("random:1:255"), Ok(WeightSpec::UniformInt { lo: 1, hi: 255, seed: 1 }));
        assert_eq!(parse_weights("random:1:9:7"), Ok(WeightSpec::UniformInt { lo: 1, hi: 9, seed: 7 }));
        assert!(parse_weights("random:9:1").unwrap_err().contains("empty"));
        assert!(parse_weights("uniform").unwrap_err().contains("expected const:W"));
    }
}
