//! The plain-text format (`.txt` and any other name), meant for people and for `diff`:
//! - node outputs: one line per node, its label as written in the input file, then the value of each node output
//!   in declaration order, separated by spaces; a value equal to its type's `inf` means "no value" and is written
//!   as a word ([`OutputData::absent`]): `unreached` for distances and levels, `unmatched` for mates, else `inf`;
//! - a value of type `node` (a mate, a parent, a component's representative) is written as that node's label, as
//!   the input file wrote it, like the first column (a node value outside the graph is written as the number);
//! - all-pairs outputs (checked as `apsp`): a line `u v d` per reachable pair, `u` and `v` labels, in row-major
//!   order, over the top-left `num_nodes × num_nodes` block (programs may pad to a tile multiple); a value counts
//!   as unreached as described at [`dense_unreached`];
//! - other dense outputs: a line `i value` (1-D) or `i j value` (2-D) per element, with the array's own indices
//!   from 0 and over its whole length;
//! - edge outputs: a line `u v x...` per edge (its endpoints' labels, then each edge output's value).
//!
//! Sections come in that order, so a program with only node outputs (the common case) gets exactly one line per
//! node. A file with sections of more than one kind starts each with a `#` line naming its columns
//! (`# node level`, `# index hist`, `# source target w`), so no row can be read as another section's.

use std::io::{self, Write};

use irgc_graph::Csr;

use super::{dense_unreached, format_value, OutputData, OutputShape};

/// Writes `outputs` as text (see the module documentation).
pub fn write_outputs(out: &mut dyn Write, graph: &Csr, outputs: &[OutputData]) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let n = graph.num_nodes() as usize;
    let nodes: Vec<&OutputData> = outputs.iter().filter(|o| o.shape == OutputShape::Node).collect();
    let edges: Vec<&OutputData> = outputs.iter().filter(|o| o.shape == OutputShape::Edge).collect();
    let dense = outputs.iter().filter(|o| matches!(o.shape, OutputShape::Dense { .. })).count();
    // Sections of different kinds in one file get a `#` line naming their columns, so rows cannot be confused
    // (a node's line and a dense array's `i value` line look alike); a file of one section has none.
    let sections = usize::from(!nodes.is_empty()) + usize::from(!edges.is_empty()) + dense;
    let label = |out: &mut dyn Write, text: String| if sections > 1 { writeln!(out, "# {text}") } else { Ok(()) };
    let names = |list: &[&OutputData]| list.iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(" ");
    if !nodes.is_empty() {
        label(&mut out, format!("node {}", names(&nodes)))?;
        for v in 0..n {
            write!(out, "{}", graph.labels.label(v as u32))?;
            for o in &nodes {
                write!(out, " {}", o.show_in(graph, v))?;
            }
            writeln!(out)?;
        }
    }
    for o in outputs {
        let OutputShape::Dense { dims } = o.shape else { continue };
        let (rows, cols) = (dims[0] as usize, dims[1] as usize);
        if !o.all_pairs() {
            label(&mut out, if cols == 1 { format!("index {}", o.name) } else { format!("row column {}", o.name) })?;
            for i in 0..rows {
                for j in 0..cols {
                    let at = i * cols + j;
                    if cols == 1 {
                        writeln!(out, "{i} {}", o.show_in(graph, at))?;
                    } else {
                        writeln!(out, "{i} {j} {}", o.show_in(graph, at))?;
                    }
                }
            }
            continue;
        }
        label(&mut out, format!("source target {}", o.name))?;
        for u in 0..rows.min(n) {
            for v in 0..cols.min(n) {
                let bits = o.values[u * cols + v];
                if !dense_unreached(o.elem, bits) {
                    let (lu, lv) = (graph.labels.label(u as u32), graph.labels.label(v as u32));
                    writeln!(out, "{lu} {lv} {}", format_value(o.elem, bits, o.absent))?;
                }
            }
        }
    }
    if !edges.is_empty() {
        label(&mut out, format!("source target {}", names(&edges)))?;
        for u in 0..graph.num_nodes() {
            for e in graph.edge_range(u) {
                write!(out, "{} {}", graph.labels.label(u), graph.labels.label(graph.col[e]))?;
                for o in &edges {
                    write!(out, " {}", o.show_in(graph, e))?;
                }
                writeln!(out)?;
            }
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgc_artifact::Scalar;

    use super::super::test_graph as graph;

    fn written(outputs: &[OutputData]) -> String {
        let mut buf = Vec::new();
        write_outputs(&mut buf, &graph(), outputs).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn node_values_are_written_as_the_files_ids() {
        let mate = OutputData {
            name: "mate".into(),
            elem: Scalar::Node,
            shape: OutputShape::Node,
            absent: "unmatched",
            values: vec![1, 0, Scalar::Node.inf_bits()],
        };
        assert_eq!(written(&[mate]), "10 20\n20 10\n30 unmatched\n");
    }

    #[test]
    fn mixed_sections_are_labelled() {
        let level = OutputData {
            name: "level".into(),
            elem: Scalar::U32,
            shape: OutputShape::Node,
            absent: "unreached",
            values: vec![0, 1, 2],
        };
        let hist = OutputData {
            name: "hist".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [2, 1] },
            absent: "inf",
            values: vec![1, 5],
        };
        assert_eq!(written(&[level, hist]), "# node level\n10 0\n20 1\n30 2\n# index hist\n0 1\n1 5\n");
    }

    #[test]
    fn dense_arrays_are_written_with_their_own_indices_and_length() {
        let hist = OutputData {
            name: "hist".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [5, 1] },
            absent: "inf",
            values: vec![4, 3, 2, 1, 0],
        };
        assert_eq!(written(&[hist]), "0 4\n1 3\n2 2\n3 1\n4 0\n");
        let grid = OutputData {
            name: "grid".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [2, 2] },
            absent: "inf",
            values: vec![1, 2, 3, 4],
        };
        assert_eq!(written(&[grid]), "0 0 1\n0 1 2\n1 0 3\n1 1 4\n");
    }

    #[test]
    fn all_pairs_arrays_keep_their_labelled_pairs() {
        let d = Scalar::U32.inf_bits();
        let apsp = OutputData {
            name: "dist".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [3, 3] },
            absent: "unreached",
            values: vec![0, 1, d, 1, 0, 1, d, 1, 0],
        };
        assert_eq!(written(&[apsp]), "10 10 0\n10 20 1\n20 10 1\n20 20 0\n20 30 1\n30 20 1\n30 30 0\n");
    }
}
