//! Loading graphs from files: format detection and the entry point [`load_graph`].
//!
//! Each format has its own parser module producing an [`EdgeList`] in input order; everything the formats share
//! (decompression, progress, node-count guards, weight replacement, the CSR build) happens here once. The format is
//! taken from [`LoadOptions::format`], else from the file name (ignoring a compression suffix), else, for the
//! ambiguous `.gr` and for unknown suffixes, from the content.

mod csv;
mod dimacs;
mod edges;
mod galois;
mod graph_txt;
mod ids;
pub(crate) mod input;
mod ldbc;
mod lines;
mod metis;
mod mtx;
mod pace;
mod snap;
mod weights;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use csv::{Column, Columns};
pub(crate) use ldbc::pair_paths as ldbc_pair;
pub use weights::{splitmix64, WeightSpec};

use crate::csr::{BuildOptions, Csr, EdgeList};
use crate::error::{display_name, LoadError};
use edges::Parsed;
use input::{file_size, Input, Progress};
use lines::Lines;

/// The file formats the loaders read and the writers write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// MatrixMarket coordinate (`.mtx`).
    MatrixMarket,
    /// DIMACS-9 shortest path (`p sp`, `a u v w`), also without header (`.gr`).
    Dimacs,
    /// PACE 2016 (`p tw`, `u v`), undirected (`.gr`).
    Pace,
    /// METIS / Chaco adjacency lines (`.graph`).
    Metis,
    /// SNAP-style edge list `u v [w]` (`.txt`, `.el`, `.wel`, ...).
    EdgeList,
    /// Delimited edge table with an optional header row (`.csv`, `.tsv`), columns chosen by [`Columns`].
    Csv,
    /// WebGraph ASCII: the node count, then one line of 0-based successors per node (`.graph-txt`).
    WebGraphAscii,
    /// LDBC Graphalytics `.v` + `.e` pair.
    Ldbc,
    /// Galois binary CSR (`.gr`).
    GaloisBinary,
}

impl Format {
    pub const ALL: [Format; 9] = [
        Format::MatrixMarket,
        Format::Dimacs,
        Format::Pace,
        Format::Metis,
        Format::EdgeList,
        Format::Csv,
        Format::WebGraphAscii,
        Format::Ldbc,
        Format::GaloisBinary,
    ];

    /// The short name used on command lines (`--format mtx`).
    pub fn name(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mtx",
            Format::Dimacs => "dimacs",
            Format::Pace => "pace",
            Format::Metis => "metis",
            Format::EdgeList => "edgelist",
            Format::Csv => "csv",
            Format::WebGraphAscii => "graph-txt",
            Format::Ldbc => "ldbc",
            Format::GaloisBinary => "galois",
        }
    }

    /// The format a file name implies, ignoring a compression suffix; `None` for `.gr` (three formats share it)
    /// and unknown suffixes.
    pub fn from_file_name(path: &Path) -> Option<Format> {
        let name = display_name(path).to_ascii_lowercase();
        let name = [".xz", ".gz", ".bz2"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(&name);
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "mtx" | "mm" => Format::MatrixMarket,
            "graph" | "metis" | "chaco" => Format::Metis,
            "v" | "e" => Format::Ldbc,
            "txt" | "el" | "wel" | "edges" | "edgelist" | "snap" => Format::EdgeList,
            "csv" | "tsv" => Format::Csv,
            "graph-txt" => Format::WebGraphAscii,
            "bgr" => Format::GaloisBinary,
            _ => return None,
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        let lower = s.to_ascii_lowercase();
        Ok(match lower.as_str() {
            "mtx" | "matrixmarket" | "mm" => Format::MatrixMarket,
            "dimacs" | "dimacs9" | "sp" => Format::Dimacs,
            "pace" | "tw" => Format::Pace,
            "metis" | "graph" => Format::Metis,
            "edgelist" | "snap" | "el" | "txt" => Format::EdgeList,
            "csv" | "tsv" => Format::Csv,
            "graph-txt" | "webgraph" | "webgraph-ascii" => Format::WebGraphAscii,
            "ldbc" | "graphalytics" => Format::Ldbc,
            "galois" | "galois-binary" | "bgr" => Format::GaloisBinary,
            _ => {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                return Err(format!("unknown graph format '{s}'; expected one of {}", names.join(", ")));
            }
        })
    }
}

/// How to load a graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The input format; `None` detects it from the file name and content.
    pub format: Option<Format>,
    /// Symmetrize / drop self loops / dedupe while building the CSR.
    pub build: BuildOptions,
    /// Where edge weights come from.
    pub weights: WeightSpec,
    /// Which columns of a CSV/TSV table (or of an edge list read as one) hold the source, destination and weight;
    /// `None` takes the defaults [`Columns`] describes. Other formats refuse a selection.
    pub columns: Option<Columns>,
}

/// How many decompressed bytes format detection looks at.
const SNIFF_BYTES: usize = 64 << 10;

/// Loads the graph in `path` (compressed or not) as a [`Csr`].
///
/// `progress` is called with (raw bytes read, total raw bytes of the input files) about every MiB and once at the
/// end; the library itself never prints.
pub fn load_graph(path: &Path, opts: &LoadOptions, progress: &mut dyn FnMut(u64, u64)) -> Result<Csr, LoadError> {
    let edges = load_edge_list(path, opts, progress)?;
    check_fits(path, &edges)?;
    Ok(edges.into_csr(opts.build))
}

/// Refuses a graph whose CSR would not fit in the memory left (a header may claim billions of nodes with few
/// edges): the build needs the row offsets (8 bytes a node), the edges and weights, and a sorting copy.
fn check_fits(path: &Path, edges: &EdgeList) -> Result<(), LoadError> {
    let Some(have) = crate::memory::available_memory() else { return Ok(()) };
    let n = edges.num_nodes as u64 + 1;
    let m = edges.src.len() as u64;
    let per_edge = if edges.weights.is_some() { 32 } else { 16 };
    let need = n.saturating_mul(8).saturating_add(m.saturating_mul(per_edge));
    if need > have {
        return Err(LoadError::invalid(
            &crate::error::display_name(path),
            format!(
                "the graph has {} nodes and {m} edges, whose CSR needs about {}, but only {} of memory is left",
                n - 1,
                crate::memory::show_bytes(need),
                crate::memory::show_bytes(have)
            ),
        ));
    }
    Ok(())
}

/// Like [`load_graph`], stopping before the CSR build: the edges in file order with the weight option applied
/// (undirected formats already hold both directions).
pub fn load_edge_list(
    path: &Path,
    opts: &LoadOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<EdgeList, LoadError> {
    opts.weights.validate()?;
    let format = opts.format.or_else(|| Format::from_file_name(path));
    let mut parsed = if format == Some(Format::Ldbc) {
        check_columns(Format::Ldbc, opts)?;
        let total = input_files(path, Some(Format::Ldbc))?.iter().map(|p| file_size(p)).sum::<Result<u64, _>>()?;
        let mut p = Progress::new(total, progress);
        let parsed = ldbc::load(path, &mut p)?;
        p.finish();
        parsed
    } else {
        let mut p = Progress::new(file_size(path)?, progress);
        let parsed = parse_single(path, format, opts, &mut p)?;
        p.finish();
        parsed
    };
    weights::apply(opts.weights, &mut parsed);
    Ok(parsed.edges)
}

/// Opens the format of `path` as [`load_graph`] would resolve it without an explicit format.
pub fn detect_format(path: &Path) -> Result<Format, LoadError> {
    if let Some(f) = Format::from_file_name(path) {
        return Ok(f);
    }
    let mut ignore = |_, _| {};
    let mut p = Progress::new(0, &mut ignore);
    let mut lines = Lines::new(Input::open(path, &mut p)?);
    let name = lines.name().to_string();
    let head = lines.peek(SNIFF_BYTES)?;
    if head.is_empty() {
        return Err(LoadError::invalid(&name, "empty file"));
    }
    sniff(&name, head)
}

/// The files a load reads (both halves of an LDBC pair), for cache keys.
pub(crate) fn input_files(path: &Path, format: Option<Format>) -> Result<Vec<PathBuf>, LoadError> {
    if format.or_else(|| Format::from_file_name(path)) == Some(Format::Ldbc) {
        let (v, e) = ldbc::pair_paths(path)?;
        Ok(vec![v, e])
    } else {
        Ok(vec![path.to_path_buf()])
    }
}

/// Loads a single-file format, detecting it from the content if `format` is `None`.
fn parse_single(
    path: &Path,
    format: Option<Format>,
    opts: &LoadOptions,
    progress: &mut Progress<'_>,
) -> Result<Parsed, LoadError> {
    let mut lines = Lines::new(Input::open(path, progress)?);
    let name = lines.name().to_string();
    let head = lines.peek(SNIFF_BYTES)?;
    if head.is_empty() {
        return Err(LoadError::invalid(&name, "empty file"));
    }
    let format = match format {
        Some(f) => f,
        None => sniff(&name, head)?,
    };
    check_columns(format, opts)?;
    let parsed = match format {
        Format::MatrixMarket => mtx::parse(&mut lines)?,
        Format::Dimacs => dimacs::parse(&mut lines)?,
        Format::Pace => pace::parse(&mut lines)?,
        Format::Metis => metis::parse(&mut lines)?,
        // A column selection reads a plain edge list as a blank-separated table.
        Format::EdgeList if opts.columns.is_some() => csv::parse(&mut lines, opts.columns.as_ref())?,
        Format::EdgeList => snap::parse(&mut lines)?,
        Format::Csv => csv::parse(&mut lines, opts.columns.as_ref())?,
        Format::WebGraphAscii => graph_txt::parse(&mut lines)?,
        Format::GaloisBinary => galois::parse(&mut lines)?,
        // Resolved before a single file is opened; only reachable through a bug in format resolution.
        Format::Ldbc => return Err(LoadError::invalid(&name, "an LDBC graph is loaded from its .v/.e pair")),
    };
    if format != Format::GaloisBinary {
        check_plausible(&name, parsed.edges.num_nodes, lines.bytes_read())?;
    }
    Ok(parsed)
}

/// Column selections only mean something for tables; elsewhere one is a mistake worth naming.
fn check_columns(format: Format, opts: &LoadOptions) -> Result<(), LoadError> {
    match &opts.columns {
        Some(c) if !matches!(format, Format::Csv | Format::EdgeList) => Err(LoadError::Options(format!(
            "a column selection ({c}) applies to CSV/TSV and edge-list files, not to {format} files"
        ))),
        _ => Ok(()),
    }
}

/// Text formats name their node count in a header; a graph of 2^31 nodes declared in a 20-byte file would make
/// the CSR build allocate 16 GiB for nothing. Nodes beyond 16 Mi must be backed by at least one byte of input
/// per 64 nodes, which any real file (even one of mostly isolated nodes) comfortably meets.
fn check_plausible(name: &str, n: u32, bytes: u64) -> Result<(), LoadError> {
    if n > 1 << 24 && (n as u64) / 64 > bytes {
        return Err(LoadError::invalid(
            name,
            format!("header says {n} nodes but the file has only {bytes} bytes; refusing to allocate such a graph"),
        ));
    }
    Ok(())
}

/// Tells the format from the first decompressed bytes.
fn sniff(name: &str, head: &[u8]) -> Result<Format, LoadError> {
    if galois::sniff(head) {
        return Ok(Format::GaloisBinary);
    }
    // Text formats are recognised by their first characters, after a UTF-8 byte order mark if there is one.
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    // Only whole lines count: the last one in `head` may be cut.
    let complete = match memchr::memrchr(b'\n', head) {
        Some(i) if head.len() == SNIFF_BYTES => &head[..i],
        _ => head,
    };
    for line in complete.split(|&b| b == b'\n') {
        let mut f = line.split(|b| lines::is_blank(*b)).filter(|s| !s.is_empty());
        let Some(first) = f.next() else { continue };
        if first == b"c" {
            continue;
        }
        if first.eq_ignore_ascii_case(b"%%MatrixMarket") {
            return Ok(Format::MatrixMarket);
        }
        if first == b"p" {
            match f.next() {
                Some(b"sp") => return Ok(Format::Dimacs),
                Some(b"tw") => return Ok(Format::Pace),
                _ => break,
            }
        }
        if first == b"a" {
            return Ok(Format::Dimacs);
        }
        // A comma: a CSV export (`src,dst`, `1,2`), header or not.
        if memchr::memchr(b',', line).is_some() {
            return Ok(Format::Csv);
        }
        if first.starts_with(b"#") || first.first().is_some_and(u8::is_ascii_digit) {
            return Ok(Format::EdgeList);
        }
        break;
    }
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    Err(LoadError::invalid(
        name,
        format!(
            "cannot tell the graph format from the name or the content; name it explicitly (one of {})",
            names.join(", ")
        ),
    ))
}
