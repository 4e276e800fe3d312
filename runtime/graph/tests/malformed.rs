//! Malformed inputs: every one must fail with a message naming the file, the line where there is one, and what was
//! wrong (pinned by snapshots), and none may panic. A last test mutates valid files byte by byte to look for panics.

use std::io::Write;
use std::path::{Path, PathBuf};

use irgc_graph::{load_graph, write_graph, Format, LoadOptions, WeightSpec};

/// Writes `content` as `name` in a fresh directory, loads it, and returns the error message with the directory
/// replaced by `[DIR]` (I/O errors carry full paths).
fn load_err_with(name: &str, content: &[u8], opts: &LoadOptions) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    err_at(&path, opts, dir.path())
}

fn load_err(name: &str, content: &[u8]) -> String {
    load_err_with(name, content, &LoadOptions::default())
}

fn err_at(path: &Path, opts: &LoadOptions, dir: &Path) -> String {
    match load_graph(path, opts, &mut |_, _| {}) {
        Ok(g) => panic!(
            "{} loaded ({} nodes, {} edges) but should have failed",
            path.display(),
            g.num_nodes(),
            g.num_edges()
        ),
        Err(e) => e.to_string().replace(&dir.display().to_string(), "[DIR]"),
    }
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut enc = xz2::write::XzEncoder::new(Vec::new(), 6);
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[test]
fn a_file_compressed_twice_is_read_through_both_layers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.mtx.gz.xz");
    let mtx = b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n";
    std::fs::write(&path, xz(&gzip(&gzip(mtx)))).unwrap();
    let g = load_graph(&path, &LoadOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!((g.num_nodes(), g.num_edges()), (3, 2));
    // A damaged inner layer is named as such.
    let mut inner = gzip(mtx);
    inner.truncate(inner.len() / 2);
    assert!(load_err("h.mtx.gz.gz", &gzip(&inner)).contains("corrupt gzip stream"));
}

#[test]
fn empty_file() {
    insta::assert_snapshot!(load_err("g.gr", b""), @"g.gr: empty file");
}

#[test]
fn empty_compressed_file() {
    insta::assert_snapshot!(load_err("g.mtx.xz", &xz(b"")), @"g.mtx.xz: empty file");
}

#[test]
fn dimacs_bad_node_id() {
    insta::assert_snapshot!(load_err("FLA.gr", b"c road\np sp 3 2\na 1 2 5\nc\na x 2 7\n"));
}

#[test]
fn dimacs_wrong_arc_count() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 4\na 1 2 5\na 2 3 7\n"));
}

#[test]
fn dimacs_too_many_arcs() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 1\na 1 2 5\na 2 3 7\n"));
}

#[test]
fn dimacs_huge_header() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 99999999999 1\na 1 2 3\n"));
}

#[test]
fn dimacs_implausible_node_count() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 4000000000 0\n"));
}

#[test]
fn dimacs_negative_id() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 1\na -1 2 5\n"));
}

#[test]
fn dimacs_bad_weight() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 1\na 1 2 heavy\n"));
}

#[test]
fn dimacs_missing_weight() {
    insta::assert_snapshot!(load_err("g.gr", b"a 0 1 5\na 1 2\n"));
}

#[test]
fn dimacs_second_header() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 1\np sp 3 1\na 1 2 5\n"));
}

#[test]
fn dimacs_unknown_line() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 1\ne 1 2\n"));
}

#[test]
fn dimacs_headerless_id_too_big() {
    insta::assert_snapshot!(load_err("g.gr", b"a 0 1 5\na 1 99999999999 2\n"));
}

#[test]
fn dimacs_id_overflowing_u64() {
    insta::assert_snapshot!(load_err("g.gr", b"p sp 3 1\na 1 999999999999999999999999 5\n"));
}

#[test]
fn pace_id_out_of_range() {
    insta::assert_snapshot!(load_err("g.gr", b"p tw 5 2\n1 2\n3 6\n"));
}

#[test]
fn pace_wrong_edge_count() {
    insta::assert_snapshot!(load_err("g.gr", b"c x\np tw 5 3\n1 2\n3 4\n"));
}

#[test]
fn pace_missing_header() {
    insta::assert_snapshot!(load_err_with(
        "g.gr",
        b"1 2\n3 4\n",
        &LoadOptions { format: Some(Format::Pace), ..Default::default() }
    ));
}

#[test]
fn pace_extra_field() {
    insta::assert_snapshot!(load_err("g.gr", b"p tw 5 1\n1 2 3\n"));
}

#[test]
fn mtx_bad_banner() {
    insta::assert_snapshot!(load_err("g.mtx", b"%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 2 3.0\n"));
}

#[test]
fn mtx_complex_field() {
    insta::assert_snapshot!(load_err(
        "g.mtx",
        b"%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 3.0 1.0\n"
    ));
}

#[test]
fn mtx_array_format() {
    insta::assert_snapshot!(load_err("g.mtx", b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"));
}

#[test]
fn mtx_id_out_of_range() {
    insta::assert_snapshot!(load_err("g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n5 5 2\n1 2\n7 1\n"));
}

#[test]
fn mtx_too_few_entries() {
    insta::assert_snapshot!(load_err(
        "g.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n% c\n5 5 3\n2 1\n3 1\n"
    ));
}

#[test]
fn mtx_not_square() {
    insta::assert_snapshot!(load_err("g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n"));
}

#[test]
fn mtx_bad_value() {
    insta::assert_snapshot!(load_err("g.mtx", b"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 2.5\n"));
}

#[test]
fn mtx_missing_size_line() {
    insta::assert_snapshot!(load_err("g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n% only comments\n"));
}

#[test]
fn metis_line_count_mismatch() {
    let mut text = b"10 4\n".to_vec();
    text.extend_from_slice(b"2\n1 3\n2 4\n3\n\n\n\n\n\n");
    insta::assert_snapshot!(load_err("g.graph", &text));
}

#[test]
fn metis_too_many_lines() {
    insta::assert_snapshot!(load_err("g.graph", b"2 1\n2\n1\n1\n"));
}

#[test]
fn metis_edge_count_mismatch() {
    insta::assert_snapshot!(load_err("g.graph", b"% comment\n3 3\n2 3\n1\n1\n"));
}

#[test]
fn metis_bad_format_code() {
    insta::assert_snapshot!(load_err("g.graph", b"3 2 12\n2 3\n1\n1\n"));
}

#[test]
fn metis_missing_edge_weight() {
    insta::assert_snapshot!(load_err("g.graph", b"3 2 1\n2 5 3\n1 5\n1\n"));
}

#[test]
fn metis_missing_header() {
    insta::assert_snapshot!(load_err("g.graph", b"% nothing but a comment\n\n"));
}

#[test]
fn edge_list_missing_second_id() {
    insta::assert_snapshot!(load_err("g.txt", b"# c\n1\t2\n3\n"));
}

#[test]
fn edge_list_bad_number() {
    insta::assert_snapshot!(load_err("g.tsv", b"1\t2\n3\t4.5\n"));
}

#[test]
fn edge_list_inconsistent_weights() {
    insta::assert_snapshot!(load_err("g.wel", b"1 2 3\n2 3 4\n3 4\n"));
}

#[test]
fn edge_list_only_comments() {
    insta::assert_snapshot!(load_err("g.txt", b"# nothing\n# here\n"));
}

#[test]
fn binary_garbage_as_text() {
    let garbage: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8 | 0x80).collect();
    insta::assert_snapshot!(load_err("g.txt", &garbage));
}

#[test]
fn galois_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.bgr");
    let g = irgc_graph::EdgeList {
        num_nodes: 3,
        src: vec![0, 1, 2],
        dst: vec![1, 2, 0],
        weights: Some(irgc_graph::Weights::Int(vec![4, 5, 6].into())),
        labels: irgc_graph::NodeLabels::Offset(0),
    }
    .into_csr(Default::default());
    write_graph(&g, Format::GaloisBinary, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(dir.path().join("g.gr"), &bytes[..bytes.len() - 6]).unwrap();
    insta::assert_snapshot!(err_at(&dir.path().join("g.gr"), &LoadOptions::default(), dir.path()));
}

#[test]
fn galois_huge_header() {
    let mut bytes = Vec::new();
    for w in [1u64, 4, 3, 1 << 40] {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes.extend_from_slice(&[0u8; 64]);
    insta::assert_snapshot!(load_err("g.gr", &bytes));
}

#[test]
fn galois_decreasing_offsets() {
    let mut bytes = Vec::new();
    for w in [1u64, 0, 2, 2, 2, 1] {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
    insta::assert_snapshot!(load_err("g.gr", &bytes));
}

#[test]
fn galois_bad_version_explicit() {
    let opts = LoadOptions { format: Some(Format::GaloisBinary), ..Default::default() };
    insta::assert_snapshot!(load_err_with(
        "g.bin",
        b"p sp 3 1\na 1 2 3\n this is text, not a Galois binary graph\n",
        &opts
    ));
}

#[test]
fn bad_xz_stream() {
    let mut bytes = vec![0xFD, b'7', b'z', b'X', b'Z', 0x00];
    bytes.extend_from_slice(b"definitely not lzma data, just text pretending to be xz");
    insta::assert_snapshot!(load_err("g.mtx.xz", &bytes));
}

#[test]
fn truncated_xz_stream() {
    let text: Vec<u8> = (1..2000).flat_map(|i| format!("{i} {}\n", i + 1).into_bytes()).collect();
    let full = xz(&text);
    insta::assert_snapshot!(load_err("g.txt.xz", &full[..full.len() / 2]));
}

#[test]
fn truncated_gzip_stream() {
    let text: Vec<u8> = (1..2000).flat_map(|i| format!("{i} {}\n", i + 1).into_bytes()).collect();
    let full = gzip(&text);
    insta::assert_snapshot!(load_err("g.txt.gz", &full[..full.len() / 2]));
}

#[test]
fn error_inside_compressed_file_names_the_line() {
    insta::assert_snapshot!(load_err("g.gr.gz", &gzip(b"p tw 3 2\n1 2\n2 4\n")));
}

#[test]
fn ldbc_unknown_vertex() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.v"), b"10\n20\n30\n").unwrap();
    std::fs::write(dir.path().join("g.e"), b"10 20\n20 40\n").unwrap();
    insta::assert_snapshot!(err_at(&dir.path().join("g.e"), &LoadOptions::default(), dir.path()));
}

#[test]
fn ldbc_missing_vertex_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.e.gz"), gzip(b"1 2\n")).unwrap();
    let msg = err_at(&dir.path().join("g.e.gz"), &LoadOptions::default(), dir.path());
    // The OS's wording of "not found" varies; the path must be there.
    assert!(msg.starts_with("[DIR]/g.v.gz: "), "{msg}");
}

#[test]
fn ldbc_duplicate_vertex() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.v"), b"10\n20\n10\n").unwrap();
    std::fs::write(dir.path().join("g.e"), b"10 20\n").unwrap();
    insta::assert_snapshot!(err_at(&dir.path().join("g.v"), &LoadOptions::default(), dir.path()));
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let msg = err_at(&dir.path().join("nope.mtx"), &LoadOptions::default(), dir.path());
    assert!(msg.starts_with("[DIR]/nope.mtx: "), "{msg}");
}

#[test]
fn unknown_format() {
    insta::assert_snapshot!(load_err("g.dat", b"hello world\n"));
}

#[test]
fn empty_weight_range() {
    let opts = LoadOptions { weights: WeightSpec::UniformInt { lo: 5, hi: 1, seed: 0 }, ..Default::default() };
    insta::assert_snapshot!(load_err_with("g.txt", b"1 2\n", &opts));
}

/// Small valid files of every format; their truncations and byte mutations must load or fail, never panic.
fn valid_samples() -> Vec<(&'static str, Vec<u8>)> {
    let mut galois = Vec::new();
    for w in [1u64, 4, 3, 3, 1, 2, 3] {
        galois.extend_from_slice(&w.to_le_bytes());
    }
    for d in [1u32, 2, 0, 0] {
        galois.extend_from_slice(&d.to_le_bytes());
    }
    for w in [7u32, 8, 9] {
        galois.extend_from_slice(&w.to_le_bytes());
    }
    vec![
        ("a.mtx", b"%%MatrixMarket matrix coordinate real symmetric\n% x\n3 3 3\n2 1 1.5\n3 2 -2\n3 3 4e1\n".to_vec()),
        ("a.gr", b"c hi\np sp 3 3\na 1 2 4\na 2 3 5\na 3 1 6\n".to_vec()),
        ("b.gr", b"a 0 1 4\na 1 2 5\n".to_vec()),
        ("c.gr", b"c pace\np tw 4 3\n1 2\n2 3\n3 4\n".to_vec()),
        ("a.graph", b"% m\n3 2 1\n2 7\n1 7 3 8\n2 8\n".to_vec()),
        ("b.graph", b"4 2 11 2\n5 6 2 1\n1 1 1 1 3 2\n0 0 2 2\n3 3\n".to_vec()),
        ("a.txt", b"# c\r\n3 2\r\n10\t20\r\n20\t30\r\n".to_vec()),
        ("a.wel", b"5 9 1.5\n9 5 2\n".to_vec()),
        ("a.csv", b"src,dst,w\n\"5\",9,1.5\n9 , 5,2\n".to_vec()),
        ("a.tsv", b"# c\nu\tv\n1\t2\n".to_vec()),
        ("a.graph-txt", b"3\n1 2\n\n0\n".to_vec()),
        ("d.gr", galois),
    ]
}

#[test]
fn mutations_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let opts = LoadOptions::default();
    let mut state = 0x1234_5678u64;
    for (name, bytes) in valid_samples() {
        let path: PathBuf = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        load_graph(&path, &opts, &mut |_, _| {}).unwrap_or_else(|e| panic!("valid sample {name} failed: {e}"));
        let mut variants: Vec<Vec<u8>> = (0..bytes.len()).map(|k| bytes[..k].to_vec()).collect();
        for _ in 0..200 {
            state = irgc_graph::load::splitmix64(state);
            let mut b = bytes.clone();
            let at = (state % b.len() as u64) as usize;
            b[at] = match (state >> 32) % 4 {
                0 => b'\n',
                1 => b' ',
                2 => b'9',
                _ => (state >> 40) as u8,
            };
            variants.push(b);
        }
        for v in variants {
            std::fs::write(&path, &v).unwrap();
            if let Ok(g) = load_graph(&path, &opts, &mut |_, _| {}) {
                g.check_invariants().unwrap();
            }
        }
    }
}
