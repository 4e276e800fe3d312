//! Writers and loaders agree (write -> load gives the same graph), the binary cache round-trips and detects
//! damage, and the loaders' format features (symmetry, format codes, headers, weight options) behave as documented.

use std::path::Path;

use irgc_graph::cache::cache_path;
use irgc_graph::{
    detect_format, load_cache, load_graph, load_graph_cached, save_cache, write_graph, BuildOptions, CacheOutcome, Csr,
    EdgeList, Format, LoadOptions, NodeLabels, WeightSpec, Weights,
};

fn graph(n: u32, edges: &[(u32, u32)], weights: Option<Weights>, labels: NodeLabels) -> Csr {
    let mut el = EdgeList::new(n);
    el.src = edges.iter().map(|e| e.0).collect();
    el.dst = edges.iter().map(|e| e.1).collect();
    el.weights = weights;
    el.labels = labels;
    el.into_csr(BuildOptions::default())
}

/// A directed graph where every node has an edge (edge lists cannot hold isolated nodes), with a self loop and
/// parallel arcs.
fn directed(weights: Option<Weights>) -> Csr {
    let e = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (4, 1), (1, 4), (0, 1)];
    graph(5, &e, weights, NodeLabels::Offset(0))
}

/// A simple undirected graph (both directions stored) with an isolated node (node 5).
fn undirected(weighted: bool) -> Csr {
    let pairs = [(0u32, 1u32, 3i64), (1, 2, 4), (0, 2, 5), (2, 3, 6), (3, 4, 7)];
    let mut e = Vec::new();
    let mut w = Vec::new();
    for &(u, v, x) in &pairs {
        e.extend([(u, v), (v, u)]);
        w.extend([x, x]);
    }
    graph(6, &e, weighted.then_some(Weights::Int(w.into())), NodeLabels::Offset(0))
}

fn load(path: &Path) -> Csr {
    let g = load_graph(path, &LoadOptions::default(), &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    g.check_invariants().unwrap();
    g
}

fn assert_same_structure(a: &Csr, b: &Csr, what: &str) {
    assert_eq!(a.row_start, b.row_start, "{what}: row_start");
    assert_eq!(a.col, b.col, "{what}: col");
    assert_eq!(a.weights, b.weights, "{what}: weights");
}

/// The edges as (label, label, weight) triples, sorted: equal for graphs that differ only in node numbering.
fn labelled_edges(g: &Csr) -> Vec<(u64, u64, String)> {
    let mut v: Vec<_> = g
        .sources()
        .iter()
        .zip(&g.col)
        .enumerate()
        .map(|(e, (&u, &d))| {
            let w = g.weights.as_ref().map(|w| format!("{:?}", w.get_f64(e))).unwrap_or_default();
            (g.labels.label(u), g.labels.label(d), w)
        })
        .collect();
    v.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
    v
}

#[test]
fn directed_formats_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for weights in [
        None,
        Some(Weights::Int(vec![5, -6, 7, 8, 9, 10, 11, 1 << 40].into())),
        Some(Weights::Float(vec![0.5, 1.0, -2.25, 1e300, 3.0, 0.1, 7.0, 8.5].into())),
    ] {
        let g = directed(weights.clone());
        for (format, name) in [
            (Format::MatrixMarket, "g.mtx"),
            (Format::Dimacs, "g.gr"),
            (Format::EdgeList, "g.txt"),
            (Format::Csv, "g.csv"),
            (Format::WebGraphAscii, "g.graph-txt"),
            (Format::Ldbc, "g.e"),
            (Format::GaloisBinary, "g.gr"),
        ] {
            if format == Format::GaloisBinary && matches!(weights, Some(Weights::Float(_))) {
                continue;
            }
            if format == Format::WebGraphAscii && weights.is_some() {
                let path = dir.path().join(name);
                let err = write_graph(&g, format, &path).unwrap_err().to_string();
                assert!(err.contains("has no edge weights"), "{err}");
                continue;
            }
            for suffix in ["", ".gz", ".xz", ".bz2"] {
                let path = dir.path().join(format!("{name}{suffix}"));
                write_graph(&g, format, &path).unwrap();
                let back = load(&path);
                let what = format!("{format} {name}{suffix} weights {:?}", weights.as_ref().map(|_| ()));
                if format == Format::Dimacs && weights.is_none() {
                    // DIMACS arcs always carry a weight; unweighted graphs are written with weight 1.
                    assert_eq!(back.weights, Some(Weights::Int(vec![1; g.col.len()].into())), "{what}");
                    assert_eq!((&back.row_start, &back.col), (&g.row_start, &g.col), "{what}");
                } else {
                    assert_same_structure(&g, &back, &what);
                }
                let expected_labels = match format {
                    Format::MatrixMarket | Format::Dimacs => NodeLabels::Offset(1),
                    Format::Ldbc => NodeLabels::Explicit((0..5).collect()),
                    _ => NodeLabels::Offset(0),
                };
                assert_eq!(back.labels, expected_labels, "{what}");
            }
        }
    }
}

#[test]
fn explicit_labels_survive_edge_lists_and_ldbc() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = directed(Some(Weights::Int(vec![1, 2, 3, 4, 5, 6, 7, 8].into())));
    g.labels = NodeLabels::Explicit(vec![900, 7, 123_456_789_012, 55, 3]);
    let e = dir.path().join("g.e.xz");
    write_graph(&g, Format::Ldbc, &e).unwrap();
    assert!(dir.path().join("g.v.xz").is_file());
    assert_eq!(load(&dir.path().join("g.v.xz")), g, "LDBC keeps node order and labels");
    let t = dir.path().join("g.tsv");
    write_graph(&g, Format::EdgeList, &t).unwrap();
    let back = load(&t);
    assert!(matches!(back.labels, NodeLabels::Explicit(_)));
    assert_eq!(labelled_edges(&back), labelled_edges(&g), "edge lists renumber nodes but keep labels");
    let c = dir.path().join("g.csv.gz");
    write_graph(&g, Format::Csv, &c).unwrap();
    assert_eq!(labelled_edges(&load(&c)), labelled_edges(&g), "CSV tables keep labels too");
}

#[test]
fn undirected_formats_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let plain = undirected(false);
    let p = dir.path().join("g.gr");
    write_graph(&plain, Format::Pace, &p).unwrap();
    assert!(std::fs::read_to_string(&p).unwrap().contains("p tw 6 5\n"));
    assert_same_structure(&plain, &load(&p), "PACE");
    for weighted in [false, true] {
        let g = undirected(weighted);
        let m = dir.path().join("g.graph.bz2");
        write_graph(&g, Format::Metis, &m).unwrap();
        let back = load(&m);
        assert_same_structure(&g, &back, "METIS");
        assert_eq!(back.labels, NodeLabels::Offset(1));
    }
    // A directed graph is written as its undirected view.
    let d = directed(None);
    write_graph(&d, Format::Pace, &p).unwrap();
    let back = load(&p);
    for v in 0..back.num_nodes() {
        assert!(!back.neighbors(v).contains(&v), "no self loops in PACE output");
        for &u in back.neighbors(v) {
            assert!(back.neighbors(u).contains(&v), "symmetric");
        }
    }
    assert_eq!(back.num_edges(), 2 * 5, "pairs 01 12 02 23 14, each way");
}

#[test]
fn formats_that_cannot_hold_float_weights_refuse_them() {
    let dir = tempfile::tempdir().unwrap();
    let g = directed(Some(Weights::Float(vec![0.5; 8].into())));
    let err = write_graph(&g, Format::Metis, &dir.path().join("g.graph")).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"g.graph: METIS edge weights must be integers; this graph has float weights");
    assert!(!dir.path().join("g.graph").exists(), "no half-written file");
    let err = write_graph(&g, Format::GaloisBinary, &dir.path().join("g.gr")).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"g.gr: Galois binary edge data must be integers; this graph has float weights");
}

#[test]
fn galois_binary_is_told_from_text_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let g = undirected(true);
    let path = dir.path().join("road.gr");
    write_graph(&g, Format::GaloisBinary, &path).unwrap();
    assert_eq!(detect_format(&path).unwrap(), Format::GaloisBinary);
    assert_eq!(load(&path), g);
    // 4-byte edge data stays 4 bytes wide (equal to the `i64` weights it was written from, value for value).
    assert!(matches!(load(&path).weights, Some(Weights::U32(_))), "{:?}", load(&path).weights);
    let mut wide = g.clone();
    wide.weights = Some(Weights::Int(vec![1 << 40; g.num_edges() as usize].into()));
    write_graph(&wide, Format::GaloisBinary, &path).unwrap();
    assert!(matches!(load(&path).weights, Some(Weights::Int(_))));
    assert_eq!(load(&path), wide);
    write_graph(&g, Format::Pace, &path).unwrap();
    assert_eq!(detect_format(&path).unwrap(), Format::Pace);
    write_graph(&g, Format::Dimacs, &path).unwrap();
    assert_eq!(detect_format(&path).unwrap(), Format::Dimacs);
}

#[test]
fn cache_round_trips_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    let mut explicit =
        directed(Some(Weights::Float(vec![0.5, 1.0, -2.25, 1e300, f64::INFINITY, 0.1, 7.0, 8.5].into())));
    explicit.labels = NodeLabels::Explicit(vec![10, 20, 30, 40, u64::MAX]);
    let empty = graph(0, &[], None, NodeLabels::Offset(1));
    // Narrow weights, an odd count of them (the last word is half padding).
    let narrow = directed(Some(Weights::U32(vec![0, 1, u32::MAX, 7, 8, 9, 10, 11].into())));
    let narrow_odd =
        graph(3, &[(0, 1), (1, 2), (2, 0)], Some(Weights::U32(vec![4, 5, 6].into())), NodeLabels::Offset(0));
    for (i, g) in [directed(None), undirected(true), explicit, empty, narrow, narrow_odd].iter().enumerate() {
        let path = dir.path().join(format!("{i}.csr"));
        save_cache(g, &path).unwrap();
        let back = load_cache(&path).unwrap();
        assert_eq!(&back, g);
        assert_eq!(
            std::mem::discriminant(back.weights.as_ref().unwrap_or(&Weights::U32(vec![].into()))),
            std::mem::discriminant(g.weights.as_ref().unwrap_or(&Weights::U32(vec![].into()))),
            "{i}: weights kind"
        );
    }
}

/// A skewed undirected graph (15 hubs joined to every node, the other 185 nodes to the hubs only): GAP's rule
/// says numbering it by degree pays. The hubs are spread over the ids, so the numbering moves them.
fn hubs_and_spokes() -> Csr {
    let hub = |v: u32| v % 13 == 5;
    let (mut e, mut w) = (Vec::new(), Vec::new());
    for u in 0..200u32 {
        for v in u + 1..200 {
            if hub(u) || hub(v) {
                e.extend([(u, v), (v, u)]);
                w.extend([i64::from(u * 7 + v), i64::from(u * 7 + v)]);
            }
        }
    }
    graph(200, &e, Some(Weights::Int(w.into())), NodeLabels::Offset(1))
}

#[test]
fn the_numbering_by_degree_is_kept_beside_the_cache_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("hubs.mtx");
    write_graph(&hubs_and_spokes(), Format::MatrixMarket, &input).unwrap();
    let cache_dir = dir.path().join("cache");
    let opts = LoadOptions::default();
    let load = || load_graph_cached(&input, &opts, &cache_dir, &mut |_, _| {}).unwrap().0;
    let kept = cache_path(&input, &opts, &cache_dir).unwrap().with_extension("by-degree.csr");

    // The first run computes it (as a graph loaded without the cache would) and keeps it.
    let computed = load().degree_ordered(false).expect("skewed");
    assert!(!computed.from_cache && kept.exists());
    let uncached = load_graph(&input, &opts, &mut |_, _| {}).unwrap().degree_ordered(false).unwrap();
    assert_eq!((&uncached.csr, &uncached.rank), (&computed.csr, &computed.rank));
    assert_eq!(computed.rank[5], 0, "the first hub gets id 0");

    // A later process reads it, labels and ranks included; the weighted numbering is kept apart.
    let read = load().degree_ordered(false).unwrap();
    assert!(read.from_cache);
    assert_eq!((&read.csr, &read.rank), (&computed.csr, &computed.rank));
    let weighted = load().degree_ordered(true).unwrap();
    assert!(!weighted.from_cache && weighted.csr.weights.is_some());
    let weighted_read = load().degree_ordered(true).unwrap();
    assert!(weighted_read.from_cache);
    assert_eq!(weighted_read.csr, weighted.csr);

    // A damaged file is a miss: computed again and rewritten.
    let good = std::fs::read(&kept).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x10;
    std::fs::write(&kept, &flipped).unwrap();
    let again = load().degree_ordered(false).unwrap();
    assert!(!again.from_cache);
    assert_eq!(again.csr, computed.csr);
    assert_eq!(std::fs::read(&kept).unwrap(), good, "rewritten");

    // A valid file whose rows do not have this numbering's degrees (the renumbered graph with its ids reversed)
    // is not taken for it.
    let n = computed.csr.num_nodes();
    let mut reversed = EdgeList::new(n);
    for u in 0..n {
        for &v in computed.csr.neighbors(u) {
            reversed.src.push(n - 1 - u);
            reversed.dst.push(n - 1 - v);
        }
    }
    save_cache(&reversed.into_csr(BuildOptions::default()), &kept).unwrap();
    let again = load().degree_ordered(false).unwrap();
    assert!(!again.from_cache);
    assert_eq!(again.csr, computed.csr);

    // Nor by a graph changed after it was loaded (`make_mut` copies the shared rows: they are no longer the ones
    // read from the cache).
    let mut changed = load();
    changed.row_start.make_mut();
    let fresh = changed.degree_ordered(false).unwrap();
    assert!(!fresh.from_cache, "a graph changed after loading does not use the kept file");
    assert_eq!(fresh.csr, computed.csr);
}

#[test]
fn the_symmetry_verdict_is_kept_beside_the_cache_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let opts = LoadOptions::default();
    for (name, g) in [("directed.el", directed(None)), ("undirected.el", undirected(false))] {
        let input = dir.path().join(name);
        write_graph(&g, Format::EdgeList, &input).unwrap();
        let load = || load_graph_cached(&input, &opts, &cache_dir, &mut |_, _| {}).unwrap().0;
        let cache = cache_path(&input, &opts, &cache_dir).unwrap();
        let kept = cache.with_extension("symmetry");

        // The first run computes the verdict and keeps it; a later process gets the same one.
        let first = load();
        let truth = first.missing_reverse();
        assert_eq!(first.missing_reverse_kept(), truth, "{name}");
        assert!(kept.exists(), "{name}");
        assert_eq!(load().missing_reverse_kept(), truth, "{name}");
        assert_eq!(truth.is_none(), name.starts_with("undirected"), "{name}");

        // The kept verdict is what a later process reads (here a planted one, under the cache's own checksum)...
        let bytes = std::fs::read(&cache).unwrap();
        let sum = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
        std::fs::write(&kept, format!("irgc symmetry 1\n{sum:016x}\nmissing 1 0\n")).unwrap();
        assert_eq!(load().missing_reverse_kept(), Some((1, 0)), "{name}");
        // ...but one naming other contents, or damaged, is a miss: computed again and rewritten.
        for bad in [format!("irgc symmetry 1\n{:016x}\nsymmetric\n", sum ^ 1), "irgc symmetry 1\n".to_string()] {
            std::fs::write(&kept, bad).unwrap();
            assert_eq!(load().missing_reverse_kept(), truth, "{name}");
            assert!(std::fs::read_to_string(&kept).unwrap().contains(&format!("{sum:016x}")), "{name}: rewritten");
        }
        // A graph changed after loading is another graph: its verdict is its own.
        let mut changed = load();
        changed.col.make_mut()[0] = 4;
        assert_eq!(changed.missing_reverse_kept(), changed.missing_reverse(), "{name}");
    }
}

#[test]
fn cache_is_reused_and_damage_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.mtx.gz");
    write_graph(&undirected(true), Format::MatrixMarket, &input).unwrap();
    let cache_dir = dir.path().join("cache");
    let opts = LoadOptions::default();
    let load = || load_graph_cached(&input, &opts, &cache_dir, &mut |_, _| {}).unwrap();
    let (g, outcome) = load();
    assert_eq!(outcome, CacheOutcome::Built);
    let (g2, outcome) = load();
    assert_eq!((outcome, &g2), (CacheOutcome::Hit, &g));

    let cache = cache_path(&input, &opts, &cache_dir).unwrap();
    let good = std::fs::read(&cache).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x10;
    let damaged: [(&str, Vec<u8>); 4] = [
        ("flipped byte", flipped),
        ("truncated", good[..good.len() - 9].to_vec()),
        ("empty", Vec::new()),
        ("garbage", b"not a cache at all, just some bytes of text....................".to_vec()),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&cache, &bytes).unwrap();
        assert!(load_cache(&cache).is_err(), "{what}: load_cache must reject it");
        let (g3, outcome) = load();
        assert_eq!((outcome, &g3), (CacheOutcome::Rebuilt, &g), "{what}");
        assert_eq!(std::fs::read(&cache).unwrap(), good, "{what}: the cache is rewritten");
    }
    let mut flipped = good.clone();
    flipped[5] ^= 1;
    std::fs::write(&cache, &flipped).unwrap();
    insta::assert_snapshot!(load_cache(&cache).unwrap_err().to_string().replace(&format!("{}", cache.file_name().unwrap().to_string_lossy()), "[CACHE]"), @"[CACHE]: not a valid graph cache: wrong magic bytes");
    let mut flipped = good.clone();
    flipped[100] ^= 1;
    std::fs::write(&cache, &flipped).unwrap();
    let msg = load_cache(&cache).unwrap_err().to_string();
    assert!(msg.ends_with("not a valid graph cache: checksum mismatch"), "{msg}");
}

#[test]
fn cache_key_follows_options_and_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.txt");
    std::fs::write(&input, "1 2\n2 3\n").unwrap();
    let cache_dir = dir.path();
    let base = LoadOptions::default();
    let sym = LoadOptions { build: BuildOptions { symmetrize: true, ..Default::default() }, ..base.clone() };
    let w = LoadOptions { weights: WeightSpec::Constant(3), ..base.clone() };
    let cols = LoadOptions { columns: Some("1,0".parse().unwrap()), ..base.clone() };
    let keys: Vec<_> = [&base, &sym, &w, &cols].iter().map(|o| cache_path(&input, o, cache_dir).unwrap()).collect();
    for i in 0..keys.len() {
        assert!(!keys[..i].contains(&keys[i]), "options {i} share a cache key with earlier ones");
    }
    let (g, _) = load_graph_cached(&input, &sym, cache_dir, &mut |_, _| {}).unwrap();
    assert_eq!(g.num_edges(), 4);
    std::fs::write(&input, "1 2\n2 3\n3 1\n").unwrap();
    let (g, outcome) = load_graph_cached(&input, &sym, cache_dir, &mut |_, _| {}).unwrap();
    assert_eq!((g.num_edges(), outcome), (6, CacheOutcome::Built), "a changed input gets a new cache");
}

fn load_text(name: &str, text: &str, opts: &LoadOptions) -> Csr {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let g = load_graph(&path, opts, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    g.check_invariants().unwrap();
    g
}

fn edges_of(g: &Csr) -> Vec<(u32, u32)> {
    g.sources().into_iter().zip(g.col.iter().copied()).collect()
}

#[test]
fn mtx_symmetry_variants() {
    let o = LoadOptions::default();
    let sym = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n2 1 5\n3 3 7\n3 2 -1\n";
    let g = load_text("s.mtx", sym, &o);
    assert_eq!(edges_of(&g), [(0, 1), (1, 0), (1, 2), (2, 1), (2, 2)], "diagonal stored once");
    assert_eq!(g.weights, Some(Weights::Int(vec![5, 5, -1, -1, 7].into())));
    let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1.5\n";
    let g = load_text("k.mtx", skew, &o);
    assert_eq!(g.weights, Some(Weights::Float(vec![-1.5, 1.5].into())));
}

#[test]
fn metis_format_codes() {
    let o = LoadOptions::default();
    // fmt 10 with ncon 2: two vertex weights per line, skipped.
    let g = load_text("a.graph", "3 2 10 2\n1 1 2\n4 4 1 3\n9 9 2\n", &o);
    assert_eq!(edges_of(&g), [(0, 1), (1, 0), (1, 2), (2, 1)]);
    assert_eq!(g.weights, None);
    // fmt 100: a vertex size first.
    let g = load_text("b.graph", "2 1 100\n7 2\n8 1\n", &o);
    assert_eq!(edges_of(&g), [(0, 1), (1, 0)]);
    // fmt 11: vertex weight, then (neighbour, weight) pairs; an empty line is an isolated node.
    let g = load_text("c.graph", "%c\n3 1 011\n5 2 9\n6 1 9\n7\n", &o);
    assert_eq!(edges_of(&g), [(0, 1), (1, 0)]);
    assert_eq!(g.weights, Some(Weights::Int(vec![9, 9].into())));
    let g = load_text("d.graph", "3 1\n2\n1\n\n", &o);
    assert_eq!(g.num_nodes(), 3);
}

#[test]
fn dimacs_variants() {
    let o = LoadOptions::default();
    let g = load_text("a.gr", "c x\np sp 3 2\na 1 2 4\na 3 1 2.5\n", &o);
    assert_eq!(g.weights, Some(Weights::Float(vec![4.0, 2.5].into())), "a float weight widens the column");
    let g = load_text("b.gr", "a 1 2 4\na 3 1 2\n", &o);
    assert_eq!((g.num_nodes(), g.labels.clone()), (3, NodeLabels::Offset(1)), "no id 0: 1-based");
    let g = load_text("c.gr", "a 1 2 4\na 3 0 2\n", &o);
    assert_eq!((g.num_nodes(), g.labels.clone()), (4, NodeLabels::Offset(0)), "an id 0: 0-based");
}

#[test]
fn edge_list_numbering_and_header() {
    let o = LoadOptions::default();
    let g = load_text("a.txt", "# sparse\n100 7\n7 42\n", &o);
    assert_eq!(g.labels, NodeLabels::Explicit(vec![100, 7, 42]), "first-appearance order");
    let g = load_text("b.txt", "1 2\n2 3\n", &o);
    assert_eq!((g.num_nodes(), g.labels.clone()), (3, NodeLabels::Offset(1)));
    // Header `N M`: M equals the line count after it and every id is at most N; N adds isolated nodes.
    let g = load_text("c.txt", "6 2\r\n0\t1\r\n1\t2\r\n", &o);
    assert_eq!((g.num_nodes(), g.num_edges(), g.labels.clone()), (6, 2, NodeLabels::Offset(0)));
    // Not a header: the count does not match.
    let g = load_text("d.txt", "6 3\n0 1\n1 2\n", &o);
    assert_eq!(g.num_edges(), 3);
    let g = load_text("e.wel", "0 1 2.5\n1 0 3\n", &o);
    assert_eq!(g.weights, Some(Weights::Float(vec![2.5, 3.0].into())));
}

#[test]
fn weight_options() {
    let pace = "p tw 4 3\n1 2\n2 3\n4 1\n";
    let constant = LoadOptions { weights: WeightSpec::Constant(9), ..Default::default() };
    assert_eq!(load_text("a.gr", pace, &constant).weights, Some(Weights::Int(vec![9; 6].into())));
    let random = LoadOptions { weights: WeightSpec::UniformInt { lo: -3, hi: 1000, seed: 42 }, ..Default::default() };
    let g = load_text("a.gr", pace, &random);
    let Some(Weights::Int(w)) = &g.weights else { panic!() };
    assert!(w.iter().all(|x| (-3..=1000).contains(x)));
    for (e, (u, v)) in edges_of(&g).into_iter().enumerate() {
        let back = g.edge_range(v).find(|&f| g.col[f] == u).unwrap();
        assert_eq!(w[e], w[back], "both directions of an undirected edge get one weight");
    }
    assert_eq!(load_text("a.gr", pace, &random), g, "deterministic");
    let other = LoadOptions { weights: WeightSpec::UniformInt { lo: -3, hi: 1000, seed: 43 }, ..Default::default() };
    assert_ne!(load_text("a.gr", pace, &other).weights, g.weights, "the seed matters");
    // Directed input symmetrized by the build: keyed by pair too, so u->v and v->u listed separately agree.
    let sym =
        LoadOptions { build: BuildOptions { symmetrize: true, dedupe: true, ..Default::default() }, ..random.clone() };
    let g = load_text("b.txt", "0 1\n1 0\n1 2\n", &sym);
    let Some(Weights::Int(w)) = &g.weights else { panic!() };
    assert_eq!((w[0], w[2]), (w[1], w[3]), "{w:?}");
}

#[test]
fn progress_reports_compressed_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt.gz");
    let n = 300_000u32;
    let g = graph(n, &(0..n).map(|i| (i, (i * 7 + 1) % n)).collect::<Vec<_>>(), None, NodeLabels::Offset(0));
    write_graph(&g, Format::EdgeList, &path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let mut calls = Vec::new();
    let back = load_graph(&path, &LoadOptions::default(), &mut |d, t| calls.push((d, t))).unwrap();
    assert_eq!(back, g);
    assert_eq!(calls.last(), Some(&(size, size)));
    assert!(calls.len() as u64 <= size / (1 << 20) + 2, "at most one report per MiB: {calls:?}");
}

#[test]
fn lines_longer_than_the_read_buffer() {
    // Node 0 of a star has 30,000 neighbours: its METIS line is ~170 KB, well past the reader's initial 64 KiB.
    let n = 30_001u32;
    let mut e = Vec::new();
    for v in 1..n {
        e.extend([(0, v), (v, 0)]);
    }
    let g = graph(n, &e, None, NodeLabels::Offset(0));
    let dir = tempfile::tempdir().unwrap();
    for name in ["star.graph", "star.graph.xz"] {
        let path = dir.path().join(name);
        write_graph(&g, Format::Metis, &path).unwrap();
        assert_same_structure(&g, &load(&path), name);
    }
}

#[test]
fn a_file_replaced_with_the_same_size_and_time_is_not_read_from_a_stale_cache() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.txt");
    std::fs::write(&input, "1 2\n2 3\n").unwrap();
    let when = std::fs::metadata(&input).unwrap().modified().unwrap();
    let opts = LoadOptions::default();
    let cache_dir = dir.path().join("cache");
    let (g, _) = load_graph_cached(&input, &opts, &cache_dir, &mut |_, _| {}).unwrap();
    assert_eq!(g.col, vec![1, 2]);
    // Same length, same modification time (as `cp -p` or `rsync -t` leave it), other edges.
    std::fs::write(&input, "1 3\n2 1\n").unwrap();
    std::fs::File::options().write(true).open(&input).unwrap().set_modified(when).unwrap();
    assert_eq!(std::fs::metadata(&input).unwrap().modified().unwrap(), when);
    let (g, outcome) = load_graph_cached(&input, &opts, &cache_dir, &mut |_, _| {}).unwrap();
    assert_eq!(outcome, CacheOutcome::Built, "the changed contents make another key");
    assert_eq!(g.col, vec![2, 0]);
}
