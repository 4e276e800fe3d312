//! `irgc._native.Graph`: a graph in the runtime's CSR form, built from the caller's edge arrays through
//! `EdgeList::into_csr` (as every loader builds one), loaded from a file through the CLI's loader and cache, or
//! generated from a `gen:` spec.

use std::path::PathBuf;
use std::str::FromStr;

use irgc_graph::{BuildOptions, CacheOutcome, Csr, EdgeList, Format, LoadOptions, NodeLabels, WeightSpec, Weights};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors;

/// A graph ready to run programs on. Immutable: runs only read it, so several threads may share one.
#[pyclass(frozen, module = "irgc._native")]
pub struct Graph {
    pub csr: Csr,
    /// How messages name it: the file name, `gen:SPEC`, or what the caller said.
    pub name: String,
    /// How the binary cache was used, for a file.
    cache: Option<CacheOutcome>,
}

/// `bytes` as little-endian values of `N` bytes each, converted by `f`; `what` names the buffer in errors.
fn decode<const N: usize, T>(b: &[u8], what: &str, f: fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    if !b.len().is_multiple_of(N) {
        return Err(errors::graph(format!("{what}: {} bytes is not a whole number of {N}-byte values", b.len())));
    }
    Ok(b.chunks_exact(N).map(|c| f(c.try_into().unwrap_or([0; N]))).collect())
}

/// Little-endian bytes of every value, for NumPy's `frombuffer`.
pub fn encode<const N: usize, T: Copy>(values: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| f(v)).collect()
}

fn build_options(symmetrize: bool, drop_self_loops: bool, dedupe: bool) -> BuildOptions {
    BuildOptions { symmetrize, drop_self_loops, dedupe }
}

#[pymethods]
impl Graph {
    /// A graph of `num_nodes` nodes and the edges `src[i] -> dst[i]` (node indices 0..num_nodes, `uint32`), with
    /// optional per-edge weights (`int64`, or `float64` when `float_weights`) and the caller's node ids (`uint64`,
    /// one per node; default: the indices themselves).
    #[staticmethod]
    #[pyo3(signature = (num_nodes, src, dst, weights=None, float_weights=false, labels=None, symmetrize=false,
                        drop_self_loops=false, dedupe=false, name="edges".to_string()))]
    #[allow(clippy::too_many_arguments)]
    fn from_edges(
        py: Python<'_>,
        num_nodes: u64,
        src: &[u8],
        dst: &[u8],
        weights: Option<&[u8]>,
        float_weights: bool,
        labels: Option<&[u8]>,
        symmetrize: bool,
        drop_self_loops: bool,
        dedupe: bool,
        name: String,
    ) -> PyResult<Graph> {
        // u32::MAX is every node type's `inf` (no node), so it cannot be a node.
        if num_nodes >= u64::from(u32::MAX) {
            return Err(errors::graph(format!("{num_nodes} nodes is more than irgc supports ({})", u32::MAX - 1)));
        }
        let n = num_nodes as u32;
        let csr = py.detach(|| -> PyResult<Csr> {
            let src = decode(src, "src", u32::from_le_bytes)?;
            let dst = decode(dst, "dst", u32::from_le_bytes)?;
            if src.len() != dst.len() {
                return Err(errors::graph(format!("{} sources but {} destinations", src.len(), dst.len())));
            }
            if let Some((i, &v)) = src.iter().chain(&dst).enumerate().find(|(_, &v)| v >= n) {
                let (end, e) = if i < src.len() { ("source", i) } else { ("destination", i - src.len()) };
                return Err(errors::graph(format!("edge {e}: {end} node {v} is not below the node count {n}")));
            }
            let weights = match weights {
                None => None,
                Some(b) if float_weights => Some(Weights::Float(decode(b, "weights", f64::from_le_bytes)?.into())),
                Some(b) => Some(Weights::Int(decode(b, "weights", i64::from_le_bytes)?.into())),
            };
            if let Some(w) = &weights {
                if w.len() != src.len() {
                    return Err(errors::graph(format!("{} weights for {} edges", w.len(), src.len())));
                }
                if let Weights::Float(ws) = w {
                    if let Some(e) = ws.iter().position(|x| !x.is_finite()) {
                        return Err(errors::graph(format!(
                            "the weight of edge {e} is {}; weights must be finite numbers",
                            ws[e]
                        )));
                    }
                }
            }
            let labels = match labels {
                None => NodeLabels::Offset(0),
                Some(b) => {
                    let ids = decode(b, "labels", u64::from_le_bytes)?;
                    if ids.len() != n as usize {
                        return Err(errors::graph(format!("{} node ids for {n} nodes", ids.len())));
                    }
                    NodeLabels::Explicit(ids)
                }
            };
            let edges = EdgeList { num_nodes: n, src, dst, weights, labels };
            Ok(edges.into_csr(build_options(symmetrize, drop_self_loops, dedupe)))
        })?;
        Ok(Graph { csr, name, cache: None })
    }

    /// Loads a graph file in any format `irgc run --graph` reads (compressed or not), through the same binary
    /// cache unless `cache` is false. `weights` is `--weights`' spec (`const:W`, `random:LO:HI[:SEED]`).
    #[staticmethod]
    #[pyo3(signature = (path, format=None, symmetrize=false, drop_self_loops=false, dedupe=false, weights=None,
                        cache=true, columns=None))]
    #[allow(clippy::too_many_arguments)]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        format: Option<&str>,
        symmetrize: bool,
        drop_self_loops: bool,
        dedupe: bool,
        weights: Option<&str>,
        cache: bool,
        columns: Option<&str>,
    ) -> PyResult<Graph> {
        let format = format.map(Format::from_str).transpose().map_err(|e| errors::graph(e.to_string()))?;
        let weights = match weights {
            None => WeightSpec::default(),
            Some(spec) => irgc_driver::graph::parse_weights(spec).map_err(errors::graph)?,
        };
        // As the CLI's --symmetrize: the reverse edges make self loops and duplicates, which go too.
        let build = build_options(symmetrize, symmetrize || drop_self_loops, symmetrize || dedupe);
        // `--columns SRC,DST[,WEIGHT]` of a CSV/TSV table: header names or 0-based indices.
        let columns = columns.map(str::parse).transpose().map_err(|e: String| errors::graph(e))?;
        let opts = LoadOptions { format, build, weights, columns };
        let name = path.file_name().map_or(path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let (csr, cache) = py
            .detach(|| irgc_driver::graph::load_file(&path, &opts, cache, &mut |_, _| {}))
            .map_err(|e| errors::graph(format!("{e:#}")))?;
        Ok(Graph { csr, name, cache })
    }

    /// Generates the graph of a generator spec such as `rmat:scale=16,ef=16,seed=1` (`gen:` prefix optional).
    #[staticmethod]
    fn generate(py: Python<'_>, spec: &str) -> PyResult<Graph> {
        let spec = spec.strip_prefix("gen:").unwrap_or(spec);
        let csr = py.detach(|| irgc_driver::graph::generate(spec)).map_err(|e| errors::graph(format!("{e:#}")))?;
        Ok(Graph { csr, name: format!("gen:{spec}"), cache: None })
    }

    #[getter]
    fn num_nodes(&self) -> u32 {
        self.csr.num_nodes()
    }

    #[getter]
    fn num_edges(&self) -> u64 {
        self.csr.num_edges()
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// "hit", "written" or "rebuilt" for a file loaded through the cache, else `None`.
    #[getter]
    fn cache(&self) -> Option<&'static str> {
        self.cache.map(|c| match c {
            CacheOutcome::Hit => "hit",
            CacheOutcome::Built => "written",
            CacheOutcome::Rebuilt => "rebuilt",
        })
    }

    /// The ids the input gave the nodes: `(base, None)` when node `i` is `i + base`, else `(None, ids)` with
    /// `ids` as `uint64` bytes.
    fn labels<'py>(&self, py: Python<'py>) -> (Option<u64>, Option<Bound<'py, PyBytes>>) {
        match &self.csr.labels {
            NodeLabels::Offset(base) => (Some(*base), None),
            NodeLabels::Explicit(ids) => (None, Some(PyBytes::new(py, &encode(ids, u64::to_le_bytes)))),
        }
    }

    /// The CSR arrays as bytes: row offsets (`uint64`, one more than nodes), destinations (`uint32`), and the
    /// weights (`int64` or `float64`, said by the last item) or `None`.
    #[allow(clippy::type_complexity)]
    fn csr<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>, bool) {
        let g = &self.csr;
        let (w, float) = match &g.weights {
            None => (None, false),
            // Integer weights reach Python as `int64` whatever width they are stored at.
            Some(w @ (Weights::Int(_) | Weights::U32(_))) => (w.ints().map(|w| encode(&w, i64::to_le_bytes)), false),
            Some(Weights::Float(w)) => (Some(encode(w, f64::to_le_bytes)), true),
        };
        (
            PyBytes::new(py, &encode(&g.row_start, u64::to_le_bytes)),
            PyBytes::new(py, &encode(&g.col, u32::to_le_bytes)),
            w.map(|w| PyBytes::new(py, &w)),
            float,
        )
    }
}
