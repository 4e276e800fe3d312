//! What the end-to-end tests share: where the repository and the shared graphs are, running the `irgc` binary,
//! a deliberately wrong variant of a program caught by its check, and the p2p-31 exact reference answers. Each test file uses the part it needs.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The repository root (programs are named relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The path of a graph in `../shared/data` (beside the clone).
pub fn data(name: &str) -> String {
    let dir = root().join("../shared/data");
    assert!(dir.is_dir(), "the shared graphs are missing: expected them in {}", dir.display());
    dir.join(name).to_str().unwrap().to_string()
}

/// Every graph of `../shared/data`, by file name: what the "verifies on every shared graph" tests cover.
pub const SHARED_GRAPHS: [&str; 15] = [
    "FLA.gr.xz",
    "NY.gr.xz",
    "BAY.gr.xz",
    "road-luxembourg-osm.mtx.xz",
    "bremen_dist.gr.xz",
    "bremen_time.gr.xz",
    "uk-2007-05@100000.arcs.tsv.xz",
    "wiki-Vote.txt.xz",
    "email-Enron.txt.xz",
    "astro-ph.graph.xz",
    "delaunay_n15.graph.xz",
    "rgg_n_2_15_s0.graph.xz",
    "wing.graph.xz",
    "copter2.graph.xz",
    "p2p-31.e.xz",
];

/// `irgc bench --runs 1 --warmup 0 --json --no-cache PROGRAMS --graph G... EXTRA`: the rows (graph-major), after
/// asserting the bench succeeded and gave one row per program and graph; also its stderr, for messages.
pub fn bench_rows<S: AsRef<str>>(programs: &[&str], graphs: &[S], extra: &[&str]) -> (Vec<serde_json::Value>, String) {
    let mut args = vec!["bench", "--runs", "1", "--warmup", "0", "--json", "--no-cache"];
    args.extend_from_slice(programs);
    for g in graphs {
        args.extend_from_slice(&["--graph", g.as_ref()]);
    }
    args.extend_from_slice(extra);
    let out = irgc(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "irgc {}\nfailed:\n{stderr}\n{stdout}", args.join(" "));
    let rows: serde_json::Value = serde_json::from_str(&stdout).expect("bench --json prints a JSON array");
    let rows = rows.as_array().expect("an array of rows").clone();
    assert_eq!(rows.len(), programs.len() * graphs.len(), "one row per program and graph:\n{stderr}");
    (rows, stderr)
}

/// Runs the `irgc` binary from the repository root.
pub fn irgc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_irgc")).current_dir(root()).args(args).output().expect("irgc runs")
}

/// A file name in the temporary directory that no other test of this process uses.
pub fn temp(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("irgc-test-{}-{n}-{what}", std::process::id()))
}

/// Runs a program with `--verify` (and `--no-cache`) and fails with its output if it does not verify.
pub fn run_verified(program: &str, graph: &str, extra: &[&str]) -> String {
    let mut args = vec!["run", program, "--graph", graph, "--no-cache", "--verify"];
    args.extend_from_slice(extra);
    let out = irgc(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && stdout.contains("verify") && !stdout.contains("FAILED"),
        "{program} on {graph} {extra:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Runs `program` with one textual edit (which must apply) and `--verify`; returns the run's stderr, after
/// checking that the run failed because the check caught the answer.
pub fn caught(program: &str, from: &str, to: &str, graph: &str, extra: &[&str]) -> String {
    let source = std::fs::read_to_string(root().join(program)).unwrap();
    assert!(source.contains(from), "{program} no longer contains {from:?}");
    let path = temp("wrong.irg");
    std::fs::write(&path, source.replacen(from, to, 1)).unwrap();
    let mut args = vec!["run", path.to_str().unwrap(), "--graph", graph, "--no-cache", "--verify"];
    args.extend_from_slice(extra);
    let o = irgc(&args);
    std::fs::remove_file(&path).ok();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr).into_owned());
    assert_eq!(o.status.code(), Some(1), "{program} with {to:?} should fail its check:\n{out}\n{err}");
    assert!(out.contains("verify    FAILED"), "{out}\n{err}");
    err
}

/// The value of `print     NAME = VALUE` in a run's summary.
pub fn printed(stdout: &str, name: &str) -> String {
    let prefix = format!("print     {name} = ");
    let line = stdout.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {name}:\n{stdout}"));
    line[prefix.len()..].split_whitespace().next().unwrap().to_string()
}

/// Whether a run's `--stats` table lists a launch of `kernel` (its second column).
pub fn launched_kernel(stdout: &str, kernel: &str) -> bool {
    stdout.lines().any(|l| l.split_whitespace().nth(1) == Some(kernel))
}

/// Reads a reference answer file of the shared data: `vertex value` per line.
pub fn reference(name: &str) -> HashMap<String, String> {
    let mut text = String::new();
    xz2::read::XzDecoder::new(std::fs::File::open(data(name)).unwrap()).read_to_string(&mut text).unwrap();
    text.lines()
        .filter_map(|l| l.split_once(char::is_whitespace))
        .map(|(a, b)| (a.to_string(), b.trim().to_string()))
        .collect()
}

/// Runs a program on p2p-31 from vertex 6 and returns the `--out` file as `vertex -> value`.
pub fn p2p31_result(program: &str, extra: &[&str]) -> HashMap<String, String> {
    let out = temp("p2p31.out");
    let mut args = vec!["--param", "source=6", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_verified(program, &data("p2p-31.e.xz"), &args);
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    text.lines().filter_map(|l| l.split_once(' ')).map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Compares with the reference: numbers equal, and the reference's unreached markers where irgc writes `unreached`.
pub fn assert_same(what: &str, got: &HashMap<String, String>, want: &HashMap<String, String>) {
    assert_eq!(got.len(), want.len(), "{what}: node count");
    for (v, w) in want {
        let g = got.get(v).unwrap_or_else(|| panic!("{what}: vertex {v} missing"));
        let unreached = matches!(w.as_str(), "9223372036854775807" | "1.797e308" | "infinity");
        if unreached {
            assert_eq!(g, "unreached", "{what}: vertex {v} should be unreached");
        } else {
            assert_eq!(g.parse::<f64>().ok(), w.parse::<f64>().ok(), "{what}: vertex {v}: got {g}, want {w}");
        }
    }
}
