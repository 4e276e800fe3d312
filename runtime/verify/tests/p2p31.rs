//! Exact answers: the LDBC Graphalytics p2p-Gnutella31 graph and its published BFS, SSSP and WCC results
//! (`shared/data/README.md` describes the files). The references must agree with them exactly, which checks the
//! references themselves, independently of any irgc backend.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use irgc_graph::{BuildOptions, Csr, EdgeList, NodeLabels, Weights};
use irgc_verify::{check_bfs, check_components, check_sssp, unreached_as_none, Mismatch};

/// The source vertex of the published answers, as written in the files.
const SOURCE_LABEL: u64 = 6;

fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    assert!(
        dir.join("p2p-31.e.xz").is_file(),
        "the p2p-31 test data is missing: expected it in {} (the project's shared/data, next to the repository)",
        dir.display()
    );
    dir
}

fn read_xz(name: &str) -> String {
    let path = data_dir().join(name);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut text = String::new();
    xz2::read::XzDecoder::new(file).read_to_string(&mut text).unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
    text
}

/// `(label, value)` per non-empty line.
fn pairs(name: &str) -> Vec<(u64, String)> {
    read_xz(name)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            let label = it.next().unwrap().parse().unwrap_or_else(|e| panic!("{name}: bad line `{l}`: {e}"));
            (label, it.next().unwrap_or_else(|| panic!("{name}: bad line `{l}`")).to_string())
        })
        .collect()
}

struct P2p {
    ids: Vec<u64>,
    index: HashMap<u64, u32>,
    directed: Csr,
    undirected: Csr,
}

impl P2p {
    fn load() -> P2p {
        // One vertex per line; the id is the first field (a second one, if present, is not needed here).
        let ids: Vec<u64> = read_xz("p2p-31.v.xz")
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(|id| id.parse().unwrap_or_else(|e| panic!("p2p-31.v.xz: bad vertex id `{id}`: {e}")))
            .collect();
        let index: HashMap<u64, u32> = ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect();
        let mut el = EdgeList::new(ids.len() as u32);
        let mut w = Vec::new();
        for line in read_xz("p2p-31.e.xz").lines().filter(|l| !l.is_empty()) {
            let f: Vec<&str> = line.split_whitespace().collect();
            el.src.push(index[&f[0].parse::<u64>().unwrap()]);
            el.dst.push(index[&f[1].parse::<u64>().unwrap()]);
            w.push(f[2].parse::<i64>().unwrap());
        }
        el.weights = Some(Weights::Int(w.into()));
        el.labels = NodeLabels::Explicit(ids.clone());
        let directed = el.clone().into_csr(BuildOptions::default());
        // No dedupe: if both u -> v and v -> u are listed with different weights, the undirected graph keeps both
        // and shortest paths use the lighter, as the reference answers do.
        let undirected = el.into_csr(BuildOptions { symmetrize: true, ..Default::default() });
        P2p { ids, index, directed, undirected }
    }

    fn source(&self) -> u32 {
        self.index[&SOURCE_LABEL]
    }

    /// A per-node vector from a `label value` file.
    fn per_node<T: Clone>(&self, name: &str, parse: impl Fn(&str) -> T, default: T) -> Vec<T> {
        let mut out = vec![default; self.ids.len()];
        let lines = pairs(name);
        assert_eq!(lines.len(), self.ids.len(), "{name} has one line per vertex");
        for (label, value) in lines {
            out[self.index[&label] as usize] = parse(&value);
        }
        out
    }

    /// Distances from an SSSP file; 1.797e308 and `infinity` mean unreached.
    fn distances(&self, name: &str) -> Vec<Option<f64>> {
        self.per_node(name, |s| Some(s.parse::<f64>().unwrap()).filter(|d| *d < 1e308), None)
    }
}

#[test]
fn bfs_undirected_matches_the_published_levels() {
    let p = P2p::load();
    let raw = p.per_node("p2p-31-BFS.xz", |s| s.parse::<u64>().unwrap(), 0);
    let levels = unreached_as_none(&raw, i64::MAX as u64);
    let summary = check_bfs(&p.undirected, p.source(), &levels).unwrap();
    assert!(summary.reached > 1000 && summary.max_level > 3, "{summary:?}");

    // One wrong level is reported at that vertex, by its label.
    let victim = (0..levels.len()).rfind(|&v| levels[v].is_some_and(|l| l > 0)).unwrap();
    let mut wrong = levels.clone();
    wrong[victim] = wrong[victim].map(|l| l + 1);
    let err = check_bfs(&p.undirected, p.source(), &wrong).unwrap_err();
    assert_eq!(err.node(), Some(p.ids[victim]));
}

#[test]
fn sssp_undirected_matches_the_published_distances() {
    let p = P2p::load();
    let dist = p.distances("p2p-31-SSSP.xz");
    check_sssp(&p.undirected, p.source(), &dist).unwrap();
    // The same answers as integers.
    let ints: Vec<Option<i64>> = dist.iter().map(|d| d.map(|d| d as i64)).collect();
    let summary = check_sssp(&p.undirected, p.source(), &ints).unwrap();
    assert!(summary.reached > 1000, "{summary:?}");
}

#[test]
fn sssp_directed_matches_the_published_distances() {
    let p = P2p::load();
    let dist = p.distances("p2p-31-SSSP-directed.xz");
    let summary = check_sssp(&p.directed, p.source(), &dist).unwrap();
    assert!(summary.reached < p.ids.len() as u64, "some vertices are unreachable along arcs");
    let reached = dist.iter().position(|d| d.is_some_and(|d| d > 0.0)).unwrap();
    let mut wrong = dist.clone();
    wrong[reached] = wrong[reached].map(|d| d - 1.0);
    match check_sssp(&p.directed, p.source(), &wrong).unwrap_err() {
        Mismatch::Node { node, .. } => assert_eq!(node, p.ids[reached]),
        other => panic!("{other}"),
    }
}

#[test]
fn components_match_the_published_partition() {
    let p = P2p::load();
    let labels = p.per_node("p2p-31-WCC.xz", |s| s.parse::<u64>().unwrap(), 0);
    let summary = check_components(&p.directed, &labels).unwrap();
    // The undirected graph has the same components.
    assert_eq!(check_components(&p.undirected, &labels).unwrap(), summary);
    assert!(summary.components >= 1 && summary.largest > 1000, "{summary:?}");
}
