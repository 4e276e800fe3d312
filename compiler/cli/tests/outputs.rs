//! `--out` in every format its name can ask for: text, CSV/TSV with a header, JSON that parses, gzip, and `-`
//! for standard output; every one keyed by the file's node ids, on a file whose ids are sparse and 1-based.

mod common;

use std::io::Read;

use common::{irgc, temp};

/// A path 7 - 3 - 12 - 40 (sparse, 1-based ids as written), and node 99 alone.
fn sparse_graph() -> std::path::PathBuf {
    let path = temp("sparse.txt");
    std::fs::write(&path, "7 3\n3 7\n3 12\n12 3\n12 40\n40 12\n99 99\n").unwrap();
    path
}

fn bfs_to(out: &str, extra: &[&str]) -> std::process::Output {
    let graph = sparse_graph();
    let mut args =
        vec!["run", "programs/bfs/bfs_worklist.irg", "--graph", graph.to_str().unwrap(), "--param", "source=3"];
    args.extend_from_slice(&["--no-cache", "--out", out]);
    args.extend_from_slice(extra);
    let o = irgc(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn csv_and_tsv_have_a_header_and_the_files_ids() {
    let csv = temp("levels.csv");
    bfs_to(csv.to_str().unwrap(), &[]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.remove(0), "node,level");
    lines.sort();
    assert_eq!(lines, ["12,1", "3,0", "40,2", "7,1", "99,"]);
    let tsv = temp("levels.tsv");
    bfs_to(tsv.to_str().unwrap(), &[]);
    assert!(std::fs::read_to_string(&tsv).unwrap().starts_with("node\tlevel\n"));
}

#[test]
fn json_parses_with_values_in_node_order_and_null_for_unreached() {
    let json = temp("levels.json");
    bfs_to(json.to_str().unwrap(), &[]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("valid JSON");
    let nodes = v["nodes"].as_array().unwrap();
    let levels = v["outputs"]["level"]["values"].as_array().unwrap();
    assert_eq!(nodes.len(), 5);
    let level_of = |id: u64| &levels[nodes.iter().position(|n| n.as_u64() == Some(id)).unwrap()];
    assert_eq!(level_of(3), 0);
    assert_eq!(level_of(40), 2);
    assert!(level_of(99).is_null());
    assert_eq!(v["outputs"]["level"]["type"], "u32");
}

#[test]
fn gz_compresses_whatever_format_the_name_gives() {
    let gz = temp("levels.csv.gz");
    bfs_to(gz.to_str().unwrap(), &[]);
    let bytes = std::fs::read(&gz).unwrap();
    assert_eq!(&bytes[..2], [0x1f, 0x8b], "gzip magic");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).unwrap();
    assert!(text.starts_with("node,level\n"), "{text}");
}

#[test]
fn dash_writes_the_outputs_to_stdout_and_the_summary_to_stderr() {
    let o = bfs_to("-", &["--out-format", "csv"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("node,level\n") && out.lines().count() == 6, "{out}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("digest"), "the summary goes to stderr");
    assert!(!std::path::Path::new("-").exists() && !common::root().join("-").exists(), "no file named -");
}

#[test]
fn formats_irgc_cannot_write_are_refused_before_the_run() {
    let graph = sparse_graph();
    let npz = temp("levels.npz");
    let o = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", graph.to_str().unwrap(), "--out"]).status.code();
    assert_eq!(o, Some(2), "--out without a value is a usage error");
    let o = irgc(&[
        "run",
        "programs/bfs/bfs_worklist.irg",
        "--graph",
        graph.to_str().unwrap(),
        "--out",
        npz.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot write .npz files") && err.contains(".json"), "{err}");
    assert!(!npz.exists());
}

#[test]
fn json_summary_carries_the_values_unless_out_takes_them() {
    let graph = sparse_graph();
    let g = graph.to_str().unwrap();
    let o =
        irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", g, "--param", "source=3", "--json", "--no-cache"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["values"]["nodes"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["values"]["outputs"]["level"]["values"].as_array().map(Vec::len), Some(5));
    let out = temp("summary-levels.txt");
    let args = ["run", "programs/bfs/bfs_worklist.irg", "--graph", g, "--json", "--no-cache", "--out"];
    let o = irgc(&[&args[..], &[out.to_str().unwrap()]].concat());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert!(v.get("values").is_none() && v["out_file"].is_string());
}

#[test]
fn outputs_may_not_destroy_inputs_or_each_other() {
    let dir = temp("clobber");
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("g.txt");
    std::fs::write(&graph, "1 2\n2 3\n").unwrap();
    let link = dir.join("link.txt");
    std::fs::hard_link(&graph, &link).unwrap();
    let (g, l) = (graph.to_str().unwrap(), link.to_str().unwrap());
    let refused = |args: &[&str], what: &str| {
        let o = irgc(args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
    };
    refused(&["run", "programs/cc/rem.irg", "--graph", g, "--out", l], "is one of the command's inputs");
    let same = dir.join("same.json");
    let s = same.to_str().unwrap();
    refused(&["run", "programs/cc/rem.irg", "--graph", g, "--out", s, "--stats-out", s], "is the same file as --out");
    // An LDBC graph's companion file is an input too.
    std::fs::write(dir.join("p.v"), "1\n2\n3\n").unwrap();
    std::fs::write(dir.join("p.e"), "1 2\n2 3\n").unwrap();
    let (e, v) = (dir.join("p.e"), dir.join("p.v"));
    refused(&["run", "programs/cc/rem.irg", "--graph", e.to_str().unwrap(), "--out", v.to_str().unwrap()], "inputs");
    assert_eq!(std::fs::read_to_string(&v).unwrap(), "1\n2\n3\n");
    // compile -o onto its own program.
    let prog = dir.join("self.irg");
    std::fs::copy(common::root().join("programs/cc/rem.irg"), &prog).unwrap();
    let p = prog.to_str().unwrap();
    refused(&["compile", p, "--emit", "ir", "-o", p], "is one of the command's inputs");
    assert_eq!(std::fs::read_to_string(&graph).unwrap(), "1 2\n2 3\n");
}

/// Betweenness on a chain of 1,100 diamonds: 2^1100 shortest paths, beyond f64. A plain run warns that the output
/// holds NaN; `--verify` fails and names the overflow instead of comparing NaN with NaN.
#[test]
fn nan_outputs_are_named_and_path_counts_beyond_f64_fail_verification() {
    let graph = temp("diamonds.txt");
    let mut text = String::new();
    for i in 0..1100u32 {
        let (a, b, c, d) = (3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3);
        for (x, y) in [(a, b), (a, c), (b, d), (c, d)] {
            text.push_str(&format!("{x} {y}\n"));
        }
    }
    std::fs::write(&graph, text).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "programs/bc/bc.irg", "--graph", graph.to_str().unwrap(), "--no-cache"];
        args.extend_from_slice(extra);
        irgc(&args)
    };
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: output `bc` holds") && err.contains("NaN value(s)"), "{err}");
    let o = run(&["--verify"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("exceeds the range of f64"), "{err}");
}
