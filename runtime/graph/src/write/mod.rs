//! Writing a [`Csr`] in every supported format, compressed when the path ends in `.xz`, `.gz` or `.bz2`.
//!
//! Writers for formats with implicit 1-based node numbering (MatrixMarket, DIMACS, PACE, METIS) write node `i` as
//! `i + 1`, and WebGraph ASCII as `i`; the edge-list, CSV and LDBC writers write the node labels (the ids the
//! graph was read with), since those formats carry arbitrary ids. PACE and METIS describe undirected graphs: they write the undirected view of the
//! graph (every pair that has an edge in either direction, once, without self loops).

mod csv;
mod dimacs;
mod edgelist;
mod galois;
mod graph_txt;
mod ldbc;
mod metis;
mod mtx;
mod pace;
mod sink;

use std::io::{self, Write};
use std::path::Path;

use crate::csr::{BuildOptions, Csr, EdgeList, Weights};
use crate::error::{display_name, WriteError};
use crate::load::Format;

/// Why a format writer stopped: an I/O error, or a graph the format cannot express.
pub(crate) enum Fail {
    Io(io::Error),
    Unsupported(String),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail::Io(e)
    }
}

/// Writes `g` to `path` in `format`. For [`Format::Ldbc`], `path` names either file of the pair (`x.v` or `x.e`,
/// with an optional compression suffix) and both are written.
pub fn write_graph(g: &Csr, format: Format, path: &Path) -> Result<(), WriteError> {
    if format == Format::Ldbc {
        let (v, e) = crate::load::ldbc_pair(path)
            .map_err(|e| WriteError::Unsupported { file: display_name(path), msg: e.to_string() })?;
        write_file(&v, |w| ldbc::write_vertices(g, w))?;
        return write_file(&e, |w| ldbc::write_edges(g, w));
    }
    write_file(path, |w| write_to(g, format, w))
}

/// Writes `g` in a single-file format to `out` (uncompressed).
pub(crate) fn write_to(g: &Csr, format: Format, out: &mut dyn Write) -> Result<(), Fail> {
    match format {
        Format::MatrixMarket => mtx::write(g, out),
        Format::Dimacs => dimacs::write(g, out),
        Format::Pace => pace::write(g, out),
        Format::Metis => metis::write(g, out),
        Format::EdgeList => edgelist::write(g, out),
        Format::GaloisBinary => galois::write(g, out),
        Format::Csv => csv::write(g, out),
        Format::WebGraphAscii => graph_txt::write(g, out),
        Format::Ldbc => Err(Fail::Unsupported("an LDBC graph is two files; use write_graph".into())),
    }
}

fn write_file(path: &Path, body: impl FnOnce(&mut dyn Write) -> Result<(), Fail>) -> Result<(), WriteError> {
    let io_err = |source| WriteError::Io { path: path.to_path_buf(), source };
    let mut sink = sink::Sink::create(path).map_err(io_err)?;
    match body(&mut sink) {
        Ok(()) => sink.finish().map_err(io_err),
        Err(Fail::Io(e)) => Err(io_err(e)),
        Err(Fail::Unsupported(msg)) => {
            drop(sink);
            // Leave no half-written file behind (best effort: the error about the graph is the one that matters).
            let _ = std::fs::remove_file(path);
            Err(WriteError::Unsupported { file: display_name(path), msg })
        }
    }
}

/// Writes weight `e` so that it reads back as the same value and kind: floats in Rust's round-trip `Debug` form,
/// which always has a `.` or exponent (`1.0`, `2.5e-7`), so they do not come back as integers.
pub(crate) fn write_weight(out: &mut dyn Write, w: &Weights, e: usize) -> io::Result<()> {
    match w {
        Weights::Int(v) => write!(out, "{}", v[e]),
        Weights::U32(v) => write!(out, "{}", v[e]),
        Weights::Float(v) => write!(out, "{:?}", v[e]),
    }
}

/// The undirected view of `g`: both directions of every pair joined by an edge either way, once, no self loops.
/// Where both directions exist with different weights, each direction keeps its own.
pub(crate) fn undirected_view(g: &Csr) -> Csr {
    let mut el = EdgeList::new(g.num_nodes());
    el.src = g.sources();
    el.dst = g.col.to_vec();
    el.weights = g.weights.clone();
    el.labels = g.labels.clone();
    el.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true })
}
