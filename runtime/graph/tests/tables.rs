//! The formats people export graphs in: CSV/TSV edge tables (header or not, columns by name or index, weights,
//! compressed) and WebGraph ASCII, with every error naming the file, the line and (for tables) the column.

use std::io::Write;

use irgc_graph::{load_graph, Columns, Csr, Format, LoadOptions, NodeLabels, Weights};

fn load_with(name: &str, content: &[u8], opts: &LoadOptions) -> Result<Csr, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    let g = load_graph(&path, opts, &mut |_, _| {}).map_err(|e| e.to_string())?;
    g.check_invariants().unwrap();
    Ok(g)
}

fn load(name: &str, content: &str) -> Csr {
    load_with(name, content.as_bytes(), &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn cols(spec: &str) -> LoadOptions {
    LoadOptions { columns: Some(spec.parse::<Columns>().unwrap()), ..Default::default() }
}

fn err(name: &str, content: &str, opts: &LoadOptions) -> String {
    match load_with(name, content.as_bytes(), opts) {
        Ok(g) => panic!("{name} loaded ({} nodes, {} edges) but should have failed", g.num_nodes(), g.num_edges()),
        Err(e) => e,
    }
}

/// The edges as (source label, destination label) pairs, in CSR order.
fn labelled(g: &Csr) -> Vec<(u64, u64)> {
    g.sources().into_iter().zip(&g.col).map(|(u, &v)| (g.labels.label(u), g.labels.label(v))).collect()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[test]
fn csv_with_a_header_keeps_the_files_ids_and_reads_the_third_column_as_weights() {
    let g = load("edges.csv", "src,dst,weight\n10,20,1.5\n20,30,2\n30,10,4\n");
    assert_eq!(g.labels, NodeLabels::Explicit(vec![10, 20, 30]));
    assert_eq!(labelled(&g), [(10, 20), (20, 30), (30, 10)]);
    assert_eq!(g.weights, Some(Weights::Float(vec![1.5, 2.0, 4.0].into())));
}

#[test]
fn csv_without_a_header_starts_at_the_first_row() {
    let g = load("e.csv", "0,1\n1,2\n2,0\n");
    assert_eq!((g.num_nodes(), g.num_edges(), g.labels.clone()), (3, 3, NodeLabels::Offset(0)));
    assert_eq!(g.weights, None);
    // Integer weights stay integers.
    let g = load("w.csv", "1,2,7\n2,3,-1\n");
    assert_eq!(g.weights, Some(Weights::Int(vec![7, -1].into())));
    assert_eq!(g.labels, NodeLabels::Offset(1));
}

#[test]
fn a_non_numeric_third_column_is_not_a_weight_and_extra_columns_are_ignored() {
    let g = load("e.csv", "from,to,label,since\n1,2,knows,2001\n2,3,likes,1999\n");
    assert_eq!(g.weights, None);
    assert_eq!(labelled(&g), [(1, 2), (2, 3)]);
}

#[test]
fn tsv_with_a_header_loads() {
    let g = load("edges.tsv", "source\ttarget\tweight\n5\t6\t3\n6\t5\t4\n");
    assert_eq!(labelled(&g), [(5, 6), (6, 5)]);
    assert_eq!(g.weights, Some(Weights::Int(vec![3, 4].into())));
    // SNAP-style comments, CRLF line ends, blanks around fields.
    let g = load("web.tsv", "# crawl\r\n% more\r\n0\t1 \r\n 1\t2\r\n\r\n2\t0\r\n");
    assert_eq!((g.num_nodes(), g.num_edges()), (3, 3));
}

#[test]
fn whitespace_separated_tables_and_quoted_fields() {
    let g = load("e.csv", "src dst\n1   2\n2\t3\n");
    assert_eq!(labelled(&g), [(1, 2), (2, 3)]);
    let g = load("q.csv", "\"src\",\"dst\",\"w\"\n\"1\",\"2\",\"0.5\"\n2, 1 ,\"1e3\"\n");
    assert_eq!(labelled(&g), [(1, 2), (2, 1)]);
    assert_eq!(g.weights, Some(Weights::Float(vec![0.5, 1000.0].into())));
}

#[test]
fn columns_by_name_and_by_index() {
    let table = "id,cost,to,from\n0,9,2,1\n1,8,3,2\n";
    let by_name = load_with("e.csv", table.as_bytes(), &cols("from,to,cost")).unwrap();
    assert_eq!(labelled(&by_name), [(1, 2), (2, 3)]);
    assert_eq!(by_name.weights, Some(Weights::Int(vec![9, 8].into())));
    let by_index = load_with("e.csv", table.as_bytes(), &cols("3,2,1")).unwrap();
    assert_eq!(by_index, by_name);
    // Header names match case-insensitively when unambiguous; two columns read no weight.
    let g = load_with("e.csv", table.as_bytes(), &cols("FROM,To")).unwrap();
    assert_eq!((labelled(&g), g.weights), (vec![(1, 2), (2, 3)], None));
    // Indices work without a header too.
    let g = load_with("e.csv", b"x,1,2\ny,2,3\n", &cols("1,2")).unwrap();
    assert_eq!(labelled(&g), [(1, 2), (2, 3)]);
}

#[test]
fn a_column_selection_reads_a_plain_edge_list_as_a_table() {
    let g = load_with("e.txt", b"# ts u v\n100 1 2\n101 2 3\n", &cols("1,2,0")).unwrap();
    assert_eq!(labelled(&g), [(1, 2), (2, 3)]);
    assert_eq!(g.weights, Some(Weights::Int(vec![100, 101].into())));
}

#[test]
fn compressed_tables_are_recognised_by_name() {
    let g = load_with("edges.csv.gz", &gzip(b"src,dst\n1,2\n2,1\n"), &LoadOptions::default()).unwrap();
    assert_eq!(labelled(&g), [(1, 2), (2, 1)]);
    let g = load_with("edges.tsv.gz", &gzip(b"a\tb\n7\t8\n"), &LoadOptions::default()).unwrap();
    assert_eq!(labelled(&g), [(7, 8)]);
}

#[test]
fn csv_is_recognised_by_content_and_by_format_name() {
    let g = load("edges.dat", "src,dst\n1,2\n");
    assert_eq!(labelled(&g), [(1, 2)]);
    let opts = LoadOptions { format: Some("tsv".parse::<Format>().unwrap()), ..Default::default() };
    let g = load_with("edges.out", b"u v\n4 5\n", &opts).unwrap();
    assert_eq!(labelled(&g), [(4, 5)]);
}

#[test]
fn csv_errors_name_the_file_line_and_column() {
    let o = LoadOptions::default();
    assert_eq!(
        err("e.csv", "src,dst\n1,2\n2,x\n", &o),
        "e.csv:3: column 'dst' (index 1): expected a node id (a non-negative integer), found 'x'"
    );
    assert_eq!(err("e.csv", "1,2\n-3,1\n", &o), "e.csv:2: column index 0: node id '-3' is negative");
    assert_eq!(
        err("e.csv", "src,dst\n1,2\n3\n", &o),
        "e.csv:3: the destination is column 'dst' (index 1), but this row has only 1 column"
    );
    assert_eq!(
        err("e.csv", "a,b,w\n1,2,5\n2,3,heavy\n", &o),
        "e.csv:3: column 'w' (index 2): expected an edge weight, found 'heavy'"
    );
    assert_eq!(
        err("e.csv", "a,b,w\n1,2,5\n2,3\n", &o),
        "e.csv:3: the weight is column 'w' (index 2), but this row has only 2 columns"
    );
    assert_eq!(
        err("e.csv", "src,dst\n1,\"2\n", &o),
        "e.csv:2: field 1 has no closing quote (quoted fields cannot span lines)"
    );
    assert_eq!(err("e.csv", "# nothing\nsrc,dst\n", &o), "e.csv: no edges (only a header, comments and blank lines)");
}

#[test]
fn column_selection_errors() {
    assert_eq!(
        err("e.csv", "from,to\n1,2\n", &cols("src,dst")),
        "e.csv:1: no column named 'src'; the header's columns are: from, to"
    );
    assert_eq!(
        err("e.csv", "1,2\n2,3\n", &cols("src,dst")),
        "e.csv:1: no column named 'src'; the header's columns are: 1, 2 (this row looks like data: does the file \
         have a header row?)"
    );
    assert_eq!(
        err("e.csv", "a,b\n1,2\n", &cols("a,1,b")),
        "e.csv:1: the columns chosen for source, destination and weight must differ; column 'b' (index 1) is chosen \
         twice"
    );
    assert_eq!(
        err("e.csv", "A,a\n1,2\n", &cols("A,0")),
        "e.csv:1: the columns chosen for source, destination and weight must differ; column 'A' (index 0) is chosen \
         twice"
    );
    assert_eq!(
        err("e.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", &cols("0,1")),
        "invalid load options: a column selection (0,1) applies to CSV/TSV and edge-list files, not to mtx files"
    );
}

#[test]
fn webgraph_ascii_lists_successors_per_line() {
    let g = load("web.graph-txt", "4\n1 2\n\n0 3 1\n\n");
    assert_eq!((g.num_nodes(), g.labels.clone()), (4, NodeLabels::Offset(0)));
    assert_eq!(labelled(&g), [(0, 1), (0, 2), (2, 0), (2, 1), (2, 3)]);
    assert_eq!(g.degree(3), 0, "the last node has no successors: its line is the final empty one");
    let g = load("web.graph-txt", "2\n1\n0\n\n\n");
    assert_eq!(g.num_edges(), 2, "blank lines after the node lines are tolerated");
    let opts = LoadOptions { format: Some("webgraph".parse().unwrap()), ..Default::default() };
    assert_eq!(load_with("web.txt", b"2\n1\n\n", &opts).unwrap().num_edges(), 1);
}

#[test]
fn webgraph_ascii_errors_have_line_numbers() {
    let o = LoadOptions::default();
    assert_eq!(
        err("w.graph-txt", "3\n1\n2\n0\n1\n", &o),
        "w.graph-txt:5: the first line says 3 nodes, so lines 2 to 4 list their successors, but here is another one"
    );
    assert_eq!(
        err("w.graph-txt", "3\n1\n2", &o),
        "w.graph-txt: the first line says 3 nodes but only 2 successor lines follow (an empty line is a node \
         without successors)"
    );
    assert_eq!(
        err("w.graph-txt", "3\n1\n2 3\n\n", &o),
        "w.graph-txt:3: successor 3 of node 1 is out of range: the first line says 3 nodes (0 to 2)"
    );
    assert_eq!(err("w.graph-txt", "3\n1\n2 x\n\n", &o), "w.graph-txt:3: expected a successor (node id), found 'x'");
    assert_eq!(
        err("w.graph-txt", "three\n", &o),
        "w.graph-txt:1: expected the number of nodes on the first line, found 'three'"
    );
    assert_eq!(
        err("w.graph-txt", "3 4\n", &o),
        "w.graph-txt:1: expected only the number of nodes on the first line, found extra field '4'"
    );
}
