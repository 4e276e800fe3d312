//! The JSON format (`.json`): every output with its type and shape, in one object that any JSON reader parses.
//!
//! ```json
//! { "nodes": [10, 20, 30],
//!   "outputs": {
//!     "level": { "type": "u32", "indexed_by": "node", "values": [0, 1, null] },
//!     "dist":  { "type": "u32", "indexed_by": "dense", "dims": [3, 3], "values": [[0, 1, null], ...] },
//!     "w":     { "type": "f32", "indexed_by": "edge", "values": [1.5, ...] } },
//!   "edges": { "source": [10, 20, ...], "target": [20, 10, ...] } }
//! ```
//! `nodes` (the file's ids, in the order of every node output's `values`) is present when a node output is, and
//! `edges` (each edge's endpoints, in the order of every edge output's `values`) when an edge output is. A value
//! meaning "no value" (the type's `inf`: unreached, unmatched) is `null`, as are an all-pairs array's unreached
//! pairs and any non-finite float, which JSON cannot hold; node-typed values are the file's ids. The array is
//! streamed, not built in memory, so a 4 M-node output costs no more than its text.

use std::io::{self, Write};

use irgc_artifact::Scalar;
use irgc_graph::Csr;

use super::{dense_unreached, OutputData, OutputShape};
use crate::eval::to_f64;

/// Writes `outputs` as one JSON object (see the module documentation).
pub fn write_json(out: &mut dyn Write, graph: &Csr, outputs: &[OutputData]) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let n = graph.num_nodes() as usize;
    write!(out, "{{")?;
    if outputs.iter().any(|o| o.shape == OutputShape::Node) {
        write!(out, "\n  \"nodes\": ")?;
        list(&mut out, (0..n).map(|v| graph.labels.label(v as u32).to_string()))?;
        write!(out, ",")?;
    }
    if outputs.iter().any(|o| o.shape == OutputShape::Edge) {
        let ends = |dst: bool| {
            (0..graph.num_nodes()).flat_map(move |u| {
                graph.edge_range(u).map(move |e| graph.labels.label(if dst { graph.col[e] } else { u }).to_string())
            })
        };
        write!(out, "\n  \"edges\": {{ \"source\": ")?;
        list(&mut out, ends(false))?;
        write!(out, ", \"target\": ")?;
        list(&mut out, ends(true))?;
        write!(out, " }},")?;
    }
    write!(out, "\n  \"outputs\": {{")?;
    for (k, o) in outputs.iter().enumerate() {
        let comma = if k + 1 < outputs.len() { "," } else { "" };
        let name = json_string(&o.name);
        write!(out, "\n    {name}: {{ \"type\": \"{}\", ", o.elem.name())?;
        match o.shape {
            OutputShape::Node | OutputShape::Edge => {
                let by = if o.shape == OutputShape::Node { "node" } else { "edge" };
                write!(out, "\"indexed_by\": \"{by}\", \"values\": ")?;
                list(&mut out, (0..o.values.len()).map(|i| value(o, graph, i)))?;
            }
            OutputShape::Dense { dims } => {
                let (rows, cols) = (dims[0] as usize, dims[1] as usize);
                write!(out, "\"indexed_by\": \"dense\", \"dims\": [{rows}, {cols}], \"values\": ")?;
                let cell = |i: usize| {
                    if o.all_pairs() && dense_unreached(o.elem, o.values[i]) {
                        "null".to_string()
                    } else {
                        value(o, graph, i)
                    }
                };
                if cols == 1 {
                    list(&mut out, (0..rows).map(cell))?;
                } else {
                    write!(out, "[")?;
                    for r in 0..rows {
                        write!(out, "{}\n      ", if r == 0 { "" } else { "," })?;
                        list(&mut out, (r * cols..(r + 1) * cols).map(cell))?;
                    }
                    write!(out, "]")?;
                }
            }
        }
        write!(out, " }}{comma}")?;
    }
    writeln!(out, "\n  }}\n}}")?;
    out.flush()
}

/// Element `i` as a JSON value: `null` for no value or a float JSON cannot hold, `true`/`false`, or a number
/// (a node as the file's id).
fn value(o: &OutputData, graph: &Csr, i: usize) -> String {
    if o.is_absent(i) {
        return "null".into();
    }
    match o.elem {
        // Debug keeps a float a float (`2.0`, not `2`), so readers see the output's type in every value.
        Scalar::F32 => finite(f32::from_bits(o.values[i] as u32).is_finite(), || {
            format!("{:?}", f32::from_bits(o.values[i] as u32))
        }),
        Scalar::F64 => finite(to_f64(o.elem, o.values[i]).is_finite(), || format!("{:?}", f64::from_bits(o.values[i]))),
        _ => o.show_in(graph, i),
    }
}

fn finite(ok: bool, text: impl FnOnce() -> String) -> String {
    if ok {
        text()
    } else {
        "null".into()
    }
}

/// Writes `[a, b, ...]`.
fn list(out: &mut dyn Write, items: impl Iterator<Item = String>) -> io::Result<()> {
    write!(out, "[")?;
    for (k, item) in items.enumerate() {
        if k > 0 {
            write!(out, ", ")?;
        }
        out.write_all(item.as_bytes())?;
    }
    write!(out, "]")
}

/// A JSON string literal (output names are identifiers; this escapes anyway).
fn json_string(s: &str) -> String {
    let mut q = String::from('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_graph as graph;

    fn parsed(outputs: &[OutputData]) -> serde_json::Value {
        let mut buf = Vec::new();
        write_json(&mut buf, &graph(), outputs).unwrap();
        serde_json::from_slice(&buf).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&buf)))
    }

    #[test]
    fn every_kind_of_output_parses_with_nulls_for_absent_values() {
        let d = Scalar::U32.inf_bits();
        let outputs = [
            OutputData {
                name: "mate".into(),
                elem: Scalar::Node,
                shape: OutputShape::Node,
                absent: "unmatched",
                values: vec![1, 0, Scalar::Node.inf_bits()],
            },
            OutputData {
                name: "x".into(),
                elem: Scalar::F64,
                shape: OutputShape::Node,
                absent: "inf",
                values: vec![0.5f64.to_bits(), f64::NAN.to_bits(), 2f64.to_bits()],
            },
            OutputData {
                name: "dist".into(),
                elem: Scalar::U32,
                shape: OutputShape::Dense { dims: [2, 2] },
                absent: "unreached",
                values: vec![0, d, 1, 0],
            },
            OutputData {
                name: "w".into(),
                elem: Scalar::Bool,
                shape: OutputShape::Edge,
                absent: "inf",
                values: vec![1, 0, 0, 1],
            },
        ];
        let v = parsed(&outputs);
        assert_eq!(v["nodes"], serde_json::json!([10, 20, 30]));
        assert_eq!(v["edges"]["source"], serde_json::json!([10, 20, 20, 30]));
        assert_eq!(v["edges"]["target"], serde_json::json!([20, 10, 30, 20]));
        assert_eq!(v["outputs"]["mate"]["values"], serde_json::json!([20, 10, null]));
        assert_eq!(v["outputs"]["mate"]["type"], "node");
        assert_eq!(v["outputs"]["x"]["values"], serde_json::json!([0.5, null, 2.0]));
        assert_eq!(v["outputs"]["dist"]["dims"], serde_json::json!([2, 2]));
        assert_eq!(v["outputs"]["dist"]["values"], serde_json::json!([[0, null], [1, 0]]));
        assert_eq!(v["outputs"]["w"]["values"], serde_json::json!([true, false, false, true]));
    }
}
