//! The table formats (`.csv`, `.tsv`): one table with a header row, as pandas, R and spreadsheets read them.
//!
//! - node outputs: `node,<output>...`, one row per node, the node as the input file wrote it;
//! - all-pairs outputs (checked as `apsp`): `source,target,<output>`, one row per reachable pair;
//! - other dense outputs: `index,<output>` (1-D) or `row,column,<output>` (2-D), over the array's whole length;
//! - edge outputs: `source,target,<output>...`, one row per edge.
//!
//! A value that means "no value" (a level of an unreached node, the mate of an unmatched one) is an empty field,
//! which pandas reads as NaN; node-typed values are the file's ids. A table holds one kind of row, so a program
//! whose outputs need two tables (node outputs beside a dense array, say) is refused with a pointer to `.json`,
//! which holds any mix.

use std::io::{self, Write};

use irgc_graph::Csr;

use super::{dense_unreached, OutputData, OutputShape};

/// Writes `outputs` as one table whose fields are separated by `sep` (`,` or a tab).
pub fn write_table(out: &mut dyn Write, graph: &Csr, outputs: &[OutputData], sep: char) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let kinds = table_kinds(outputs);
    if kinds.len() > 1 {
        let names: Vec<String> = outputs.iter().map(|o| format!("`{}` ({})", o.name, kind_name(o))).collect();
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the outputs {} need {} tables, and a CSV/TSV file holds one: write .json (or .txt) instead",
                names.join(", "),
                kinds.len()
            ),
        ));
    }
    let field = |o: &OutputData, i: usize| if o.is_absent(i) { String::new() } else { o.show_in(graph, i) };
    let header = |out: &mut dyn Write, keys: &[&str], values: &[&OutputData]| -> io::Result<()> {
        let mut names: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        names.extend(values.iter().map(|o| quote(&o.name, sep)));
        writeln!(out, "{}", names.join(&sep.to_string()))
    };
    let nodes: Vec<&OutputData> = outputs.iter().filter(|o| o.shape == OutputShape::Node).collect();
    let edges: Vec<&OutputData> = outputs.iter().filter(|o| o.shape == OutputShape::Edge).collect();
    if !nodes.is_empty() {
        header(&mut out, &["node"], &nodes)?;
        for v in 0..graph.num_nodes() as usize {
            write!(out, "{}", graph.labels.label(v as u32))?;
            for o in &nodes {
                write!(out, "{sep}{}", field(o, v))?;
            }
            writeln!(out)?;
        }
    } else if !edges.is_empty() {
        header(&mut out, &["source", "target"], &edges)?;
        for u in 0..graph.num_nodes() {
            for e in graph.edge_range(u) {
                write!(out, "{}{sep}{}", graph.labels.label(u), graph.labels.label(graph.col[e]))?;
                for o in &edges {
                    write!(out, "{sep}{}", field(o, e))?;
                }
                writeln!(out)?;
            }
        }
    } else if let Some(o) = outputs.first() {
        let OutputShape::Dense { dims } = o.shape else { unreachable!("node and edge outputs are handled above") };
        let (rows, cols) = (dims[0] as usize, dims[1] as usize);
        if o.all_pairs() {
            header(&mut out, &["source", "target"], &[o])?;
            let n = graph.num_nodes() as usize;
            for u in 0..rows.min(n) {
                for v in 0..cols.min(n) {
                    if !dense_unreached(o.elem, o.values[u * cols + v]) {
                        let (lu, lv) = (graph.labels.label(u as u32), graph.labels.label(v as u32));
                        writeln!(out, "{lu}{sep}{lv}{sep}{}", o.show(u * cols + v))?;
                    }
                }
            }
        } else if cols == 1 {
            header(&mut out, &["index"], &[o])?;
            for i in 0..rows {
                writeln!(out, "{i}{sep}{}", field(o, i))?;
            }
        } else {
            header(&mut out, &["row", "column"], &[o])?;
            for i in 0..rows {
                for j in 0..cols {
                    writeln!(out, "{i}{sep}{j}{sep}{}", field(o, i * cols + j))?;
                }
            }
        }
    }
    out.flush()
}

/// The distinct tables `outputs` need: all node outputs share one, all edge outputs another, each dense array
/// needs its own.
fn table_kinds(outputs: &[OutputData]) -> Vec<String> {
    let mut kinds: Vec<String> = outputs
        .iter()
        .map(|o| match o.shape {
            OutputShape::Node => "node".to_string(),
            OutputShape::Edge => "edge".to_string(),
            OutputShape::Dense { .. } => format!("dense {}", o.name),
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

fn kind_name(o: &OutputData) -> &'static str {
    match o.shape {
        OutputShape::Node => "per node",
        OutputShape::Edge => "per edge",
        OutputShape::Dense { .. } => "dense array",
    }
}

/// A header field, quoted if it holds the separator or a quote (output names are identifiers, so this is a
/// guard, not a common case).
fn quote(name: &str, sep: char) -> String {
    if name.contains(sep) || name.contains('"') {
        format!("\"{}\"", name.replace('"', "\"\""))
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgc_artifact::Scalar;

    use super::super::test_graph as graph;

    fn output(name: &str, elem: Scalar, shape: OutputShape, absent: &'static str, values: Vec<u64>) -> OutputData {
        OutputData { name: name.into(), elem, shape, absent, values }
    }

    fn written(outputs: &[OutputData], sep: char) -> io::Result<String> {
        let mut buf = Vec::new();
        write_table(&mut buf, &graph(), outputs, sep)?;
        Ok(String::from_utf8(buf).unwrap())
    }

    #[test]
    fn node_outputs_share_one_table_keyed_by_the_files_ids() {
        let level = output("level", Scalar::U32, OutputShape::Node, "unreached", vec![0, 1, Scalar::U32.inf_bits()]);
        let mate = output("mate", Scalar::Node, OutputShape::Node, "unmatched", vec![1, 0, Scalar::Node.inf_bits()]);
        assert_eq!(written(&[level.clone(), mate], ',').unwrap(), "node,level,mate\n10,0,20\n20,1,10\n30,,\n");
        assert_eq!(written(&[level], '\t').unwrap(), "node\tlevel\n10\t0\n20\t1\n30\t\n");
    }

    #[test]
    fn dense_all_pairs_and_edge_outputs_get_their_own_columns() {
        let hist = output("hist", Scalar::U32, OutputShape::Dense { dims: [2, 1] }, "inf", vec![4, 3]);
        assert_eq!(written(&[hist], ',').unwrap(), "index,hist\n0,4\n1,3\n");
        let d = Scalar::U32.inf_bits();
        let apsp = output("dist", Scalar::U32, OutputShape::Dense { dims: [2, 2] }, "unreached", vec![0, d, 1, 0]);
        assert_eq!(written(&[apsp], ',').unwrap(), "source,target,dist\n10,10,0\n20,10,1\n20,20,0\n");
        let w = output(
            "w",
            Scalar::F32,
            OutputShape::Edge,
            "inf",
            [1.5f32, 2.0, 3.0, 4.0].map(|x| x.to_bits() as u64).to_vec(),
        );
        assert_eq!(written(&[w], ',').unwrap(), "source,target,w\n10,20,1.5\n20,10,2\n20,30,3\n30,20,4\n");
    }

    #[test]
    fn outputs_needing_two_tables_are_refused_with_the_fix() {
        let level = output("level", Scalar::U32, OutputShape::Node, "inf", vec![0, 1, 2]);
        let hist = output("hist", Scalar::U32, OutputShape::Dense { dims: [2, 1] }, "inf", vec![4, 3]);
        let err = written(&[level, hist], ',').unwrap_err().to_string();
        assert!(err.contains("`level` (per node), `hist` (dense array)") && err.contains(".json"), "{err}");
    }
}
