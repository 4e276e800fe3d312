//! The compressed-sparse-row graph and the edge list it is built from.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::renumber::Renumbered;
use crate::rows::rows_of;
use crate::shared::Shared;

/// Per-edge weights, kept in the precision the input had. [`Shared`] like the edges, so the weights converted
/// for a program can be kept with the graph (`Csr::converted_weights`).
///
/// `U32` holds integer weights as a file wrote them in 4 bytes (Galois `.gr` edge data): the same values as `Int`
/// (equality compares values, not widths), at half the memory, and a program whose weight type is `u32` reads the
/// array in place rather than a converted copy (on kron22, 128 M weights: 0.5 GB and 0.4 s of set-up saved).
#[derive(Clone, Debug)]
pub enum Weights {
    Int(Shared<i64>),
    U32(Shared<u32>),
    Float(Shared<f64>),
}

impl PartialEq for Weights {
    fn eq(&self, other: &Weights) -> bool {
        match (self, other) {
            (Weights::Float(a), Weights::Float(b)) => **a == **b,
            (Weights::Float(_), _) | (_, Weights::Float(_)) => false,
            (a, b) => a.len() == b.len() && (0..a.len()).all(|e| a.int(e) == b.int(e)),
        }
    }
}

impl Weights {
    pub fn len(&self) -> usize {
        match self {
            Weights::Int(w) => w.len(),
            Weights::U32(w) => w.len(),
            Weights::Float(w) => w.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the weights are integers (`Int` or `U32`).
    pub fn is_int(&self) -> bool {
        !matches!(self, Weights::Float(_))
    }

    /// The weight of edge `e` as an `f64` (exact for integers below 2^53).
    pub fn get_f64(&self, e: usize) -> f64 {
        match self {
            Weights::Int(w) => w[e] as f64,
            Weights::U32(w) => w[e] as f64,
            Weights::Float(w) => w[e],
        }
    }

    /// The weight of integer edge `e` as an `i64` (`None` for float weights).
    pub fn int(&self, e: usize) -> Option<i64> {
        match self {
            Weights::Int(w) => Some(w[e]),
            Weights::U32(w) => Some(w[e] as i64),
            Weights::Float(_) => None,
        }
    }

    /// Integer weights widened to `i64`, as one array (borrowed when they already are); `None` for float weights.
    pub fn ints(&self) -> Option<std::borrow::Cow<'_, [i64]>> {
        match self {
            Weights::Int(w) => Some(std::borrow::Cow::Borrowed(&w[..])),
            Weights::U32(w) => Some(std::borrow::Cow::Owned(w.par_iter().map(|&x| x as i64).collect())),
            Weights::Float(_) => None,
        }
    }

    /// Whether `a` and `b` are the same arrays (not merely equal ones).
    fn same(a: &Weights, b: &Weights) -> bool {
        match (a, b) {
            (Weights::Int(a), Weights::Int(b)) => Shared::same(a, b),
            (Weights::U32(a), Weights::U32(b)) => Shared::same(a, b),
            (Weights::Float(a), Weights::Float(b)) => Shared::same(a, b),
            _ => false,
        }
    }

    /// Edges `lo..hi`'s weights, in the same representation.
    pub fn slice(&self, lo: usize, hi: usize) -> Weights {
        match self {
            Weights::Int(v) => Weights::Int(v[lo..hi].to_vec().into()),
            Weights::U32(v) => Weights::U32(v[lo..hi].to_vec().into()),
            Weights::Float(v) => Weights::Float(v[lo..hi].to_vec().into()),
        }
    }

    /// The weights of edges `order[0], order[1], ...`, in that order.
    pub(crate) fn permuted(&self, order: &[usize]) -> Weights {
        match self {
            Weights::Int(w) => Weights::Int(order.par_iter().map(|&i| w[i]).collect()),
            Weights::U32(w) => Weights::U32(order.par_iter().map(|&i| w[i]).collect()),
            Weights::Float(w) => Weights::Float(order.par_iter().map(|&i| w[i]).collect()),
        }
    }

    /// The weights followed by a copy of themselves (for an edge list that gains every edge's reverse).
    fn doubled(self) -> Weights {
        fn twice<T: Clone>(mut v: Shared<T>) -> Shared<T> {
            v.make_mut().extend_from_within(..);
            v
        }
        match self {
            Weights::Int(v) => Weights::Int(twice(v)),
            Weights::U32(v) => Weights::U32(twice(v)),
            Weights::Float(v) => Weights::Float(twice(v)),
        }
    }
}

/// How node ids in the graph map back to the ids written in the input file.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeLabels {
    /// Node `i` was written as `i + base` (0 for 0-based files, 1 for 1-based ones).
    Offset(u64),
    /// Node `i` was written as `ids[i]` (sparse or unordered ids, e.g. SNAP and LDBC files).
    Explicit(Vec<u64>),
}

impl NodeLabels {
    /// The id of node `v` as written in the input.
    pub fn label(&self, v: u32) -> u64 {
        match self {
            NodeLabels::Offset(base) => v as u64 + base,
            NodeLabels::Explicit(ids) => ids[v as usize],
        }
    }
}

/// A directed graph in compressed-sparse-row form. An undirected graph is stored with both directions of every
/// edge. The out-edges of node `v` are `row_start[v]..row_start[v + 1]`, sorted by destination: every loader,
/// generator and the cache build rows so, [`Csr::check_invariants`] checks it, and programs may rely on it (a
/// binary search in a row, as `programs/tc/tc.irg` does).
///
/// The row offsets and edges are [`Shared`]: runs on the CPU read them in place, and clones share them.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    /// `num_nodes + 1` offsets into `col`; `row_start[0] == 0`, non-decreasing.
    pub row_start: Shared<u64>,
    /// Destination of every edge.
    pub col: Shared<u32>,
    /// Weight of every edge, if the graph has them (same length as `col`).
    pub weights: Option<Weights>,
    /// The node ids as written in the input file.
    pub labels: NodeLabels,
    /// Arrays computed from the others, kept with the graph.
    derived: Derived,
}

/// Arrays a program may ask for that are computed from the graph's own ([`Csr::shared_sources`]), kept with it so
/// that every run after the first finds them ready (`irgc bench`'s repetitions, a Python session's runs). Each is
/// kept with the array it was computed from: a holder of that array stops anyone changing it in place
/// ([`Shared::make_mut`] copies), so a kept array is current exactly when its origin is still the graph's.
#[derive(Debug, Default)]
struct Derived {
    /// The edge sources, with the row offsets they were computed from.
    sources: Mutex<Option<(Shared<u64>, Shared<u32>)>>,
    /// The weights converted to 32-bit types ([`Csr::converted_weights`]): the weights they were converted from,
    /// the type's name, the converted array.
    weights: Mutex<Vec<(Weights, &'static str, Shared<u32>)>>,
    /// The graph numbered by degree ([`Csr::degree_ordered`]), with the row offsets and edges it came from.
    renumbered: Mutex<Option<KeptRenumbering>>,
    /// The symmetry check's verdict ([`Csr::missing_reverse_kept`]), with the row offsets and edges it is about.
    symmetry: Mutex<Option<KeptVerdict>>,
    /// The graph's file in the graph cache, where it came from one ([`Csr::keep_derived_beside`]), with the
    /// arrays that were read from it.
    cache_file: Option<CacheFile>,
}

/// The graph's file in the graph cache, with the row offsets, edges and weights read from it.
type CacheFile = (PathBuf, Shared<u64>, Shared<u32>, Option<Weights>);

/// A kept [`Renumbered`] graph, with the row offsets, edges and weights it was computed from.
type KeptRenumbering = (Shared<u64>, Shared<u32>, Option<Weights>, Arc<Renumbered>);
/// The row offsets and edges a symmetry verdict is about, and the verdict (an edge without its reverse, if any).
type KeptVerdict = (Shared<u64>, Shared<u32>, Option<(u32, u32)>);

impl Clone for Derived {
    fn clone(&self) -> Derived {
        let sources = self.sources.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let weights = self.weights.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let renumbered = self.renumbered.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let symmetry = self.symmetry.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Derived {
            sources: Mutex::new(sources),
            weights: Mutex::new(weights),
            renumbered: Mutex::new(renumbered),
            symmetry: Mutex::new(symmetry),
            cache_file: self.cache_file.clone(),
        }
    }
}

/// Derived arrays are a function of the graph's own, so they never make two graphs differ.
impl PartialEq for Derived {
    fn eq(&self, _: &Derived) -> bool {
        true
    }
}

impl Csr {
    pub fn new(
        row_start: impl Into<Shared<u64>>,
        col: impl Into<Shared<u32>>,
        weights: Option<Weights>,
        labels: NodeLabels,
    ) -> Csr {
        Csr { row_start: row_start.into(), col: col.into(), weights, labels, derived: Derived::default() }
    }

    pub fn num_nodes(&self) -> u32 {
        (self.row_start.len() - 1) as u32
    }

    pub fn num_edges(&self) -> u64 {
        self.col.len() as u64
    }

    /// The range of edge ids leaving `v`.
    pub fn edge_range(&self, v: u32) -> std::ops::Range<usize> {
        self.row_start[v as usize] as usize..self.row_start[v as usize + 1] as usize
    }

    /// The destinations of `v`'s out-edges.
    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.col[self.edge_range(v)]
    }

    pub fn degree(&self, v: u32) -> u32 {
        (self.row_start[v as usize + 1] - self.row_start[v as usize]) as u32
    }

    /// The source node of every edge (the edge-list view), filled in parallel: each chunk of edges finds its
    /// first source by binary search and walks the rows from there.
    pub fn sources(&self) -> Vec<u32> {
        let mut src = vec![0u32; self.col.len()];
        self.sources_into(&mut src);
        src
    }

    /// [`Csr::sources`], computed once per graph and kept with it (see `Derived`): the array programs that read
    /// `G.src` get.
    pub fn shared_sources(&self) -> Shared<u32> {
        let mut kept = self.derived.sources.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((origin, sources)) = &*kept {
            if Shared::same(origin, &self.row_start) {
                return sources.clone();
            }
        }
        let sources: Shared<u32> = self.sources().into();
        *kept = Some((self.row_start.clone(), sources.clone()));
        sources
    }

    /// Notes that this graph is the one cached at `cache_file` (by [`crate::load_graph_cached`]), so derived graphs
    /// that take seconds to compute (the numbering by degree) are kept beside it, for the next process.
    pub fn keep_derived_beside(&mut self, cache_file: &Path) {
        let arrays = (self.row_start.clone(), self.col.clone(), self.weights.clone());
        self.derived.cache_file = Some((cache_file.to_path_buf(), arrays.0, arrays.1, arrays.2));
    }

    /// Whether `rows` and `cols` are still this graph's row offsets and edges (not copies: see `Derived`), so that
    /// what was kept about them holds for it.
    fn has_edges(&self, rows: &Shared<u64>, cols: &Shared<u32>) -> bool {
        Shared::same(rows, &self.row_start) && Shared::same(cols, &self.col)
    }

    /// The graph's file in the graph cache, if it came from one ([`Csr::keep_derived_beside`]) and its arrays are
    /// still the ones read from there (one changed in place, or new weights, make it another graph).
    pub(crate) fn cache_file(&self) -> Option<&Path> {
        let (path, rows, cols, weights) = self.derived.cache_file.as_ref()?;
        let same_weights = match (weights, &self.weights) {
            (None, None) => true,
            (Some(a), Some(b)) => Weights::same(a, b),
            _ => false,
        };
        (self.has_edges(rows, cols) && same_weights).then_some(path.as_path())
    }

    /// The graph numbered by degree that `compute` gives, computed once per graph and kept with it (see
    /// `Derived`): what [`Csr::degree_ordered`] (in `cache.rs`, which also keeps it on disk) returns. The weights
    /// come along only `with_weights`.
    pub(crate) fn kept_renumbering(
        &self,
        with_weights: bool,
        compute: impl FnOnce(&Csr) -> Renumbered,
    ) -> Arc<Renumbered> {
        let mut kept = self.derived.renumbered.lock().unwrap_or_else(|e| e.into_inner());
        let wanted = self.weights.as_ref().filter(|_| with_weights);
        if let Some((rows, cols, weights, r)) = &*kept {
            let same_weights = match (wanted, weights) {
                (None, None) => true,
                (Some(a), Some(b)) => Weights::same(a, b),
                _ => false,
            };
            if self.has_edges(rows, cols) && same_weights {
                return r.clone();
            }
        }
        let r = Arc::new(compute(self));
        *kept = Some((self.row_start.clone(), self.col.clone(), wanted.cloned(), r.clone()));
        r
    }

    /// The verdict `compute` gives on this graph's edges, computed once per graph and kept with it (see `Derived`):
    /// what [`Csr::missing_reverse_kept`] (in `cache.rs`, which also keeps it on disk) returns.
    pub(crate) fn kept_symmetry(&self, compute: impl FnOnce(&Csr) -> Option<(u32, u32)>) -> Option<(u32, u32)> {
        let mut kept = self.derived.symmetry.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((rows, cols, verdict)) = &*kept {
            if self.has_edges(rows, cols) {
                return *verdict;
            }
        }
        let verdict = compute(self);
        *kept = Some((self.row_start.clone(), self.col.clone(), verdict));
        verdict
    }

    /// The weights converted to the 32-bit type named `ty` by `convert`, which runs once per graph and type: later
    /// calls get the kept array (kron22's 128 M weights took half a second to convert on two cores, every run). An
    /// error is returned as it is, and nothing is kept.
    pub fn converted_weights<E>(
        &self,
        ty: &'static str,
        convert: impl FnOnce(&Csr) -> Result<Vec<u32>, E>,
    ) -> Result<Shared<u32>, E> {
        let Some(weights) = &self.weights else { return convert(self).map(Shared::from) };
        let mut kept = self.derived.weights.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(origin, _, _)| Weights::same(origin, weights));
        if let Some((_, _, converted)) = kept.iter().find(|(_, name, _)| *name == ty) {
            return Ok(converted.clone());
        }
        let converted: Shared<u32> = convert(self)?.into();
        kept.push((weights.clone(), ty, converted.clone()));
        Ok(converted)
    }

    /// [`Csr::sources`] written into `out` (one slot per edge), so a caller can fill memory it already has.
    fn sources_into(&self, out: &mut [u32]) {
        const CHUNK: usize = 1 << 16;
        assert_eq!(out.len(), self.col.len(), "one source slot per edge");
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
            let first = (c * CHUNK) as u64;
            let mut v = self.row_start.partition_point(|&s| s <= first) - 1;
            for (e, slot) in (first..).zip(out.iter_mut()) {
                while self.row_start[v + 1] <= e {
                    v += 1;
                }
                *slot = v as u32;
            }
        });
    }

    /// The transpose's row offsets and columns: row `v` lists the sources of `v`'s in-edges, in increasing order
    /// (one counting pass, linear). Used by the symmetry check and by the PageRank reference's pulled steps.
    pub fn transpose(&self) -> (Vec<u64>, Vec<u32>) {
        let n = self.num_nodes() as usize;
        let mut row_start = vec![0u64; n + 1];
        for &v in &self.col {
            row_start[v as usize + 1] += 1;
        }
        for v in 0..n {
            row_start[v + 1] += row_start[v];
        }
        let mut col = vec![0u32; self.col.len()];
        let mut next = row_start[..n].to_vec();
        for u in 0..self.num_nodes() {
            for &v in self.neighbors(u) {
                col[next[v as usize] as usize] = u;
                next[v as usize] += 1;
            }
        }
        (row_start, col)
    }

    /// Checks the structural invariants documented on the fields; loaders and generators call it in tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.row_start.is_empty() || self.row_start[0] != 0 {
            return Err("row_start must start with 0".into());
        }
        if self.row_start.windows(2).any(|w| w[0] > w[1]) {
            return Err("row_start must be non-decreasing".into());
        }
        if *self.row_start.last().unwrap() != self.col.len() as u64 {
            return Err("row_start must end at the number of edges".into());
        }
        let n = self.num_nodes();
        if let Some(bad) = self.col.iter().position(|&d| d >= n) {
            return Err(format!("edge {bad} points to node {} of {n}", self.col[bad]));
        }
        // Rows sorted by destination: programs search them (triangle counting's binary search), not only scan.
        if let Some(v) = (0..n).find(|&v| self.neighbors(v).windows(2).any(|w| w[0] > w[1])) {
            return Err(format!("the row of node {v} is not sorted by destination"));
        }
        if let Some(w) = &self.weights {
            if w.len() != self.col.len() {
                return Err("weights must have one entry per edge".into());
            }
        }
        if let NodeLabels::Explicit(ids) = &self.labels {
            if ids.len() != n as usize {
                return Err("explicit labels must have one entry per node".into());
            }
            // Two nodes with one id would make outputs ambiguous (a cache file edited by hand could do it).
            let mut sorted = ids.clone();
            sorted.par_sort_unstable();
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(format!("two nodes have the id {}", w[0]));
            }
        }
        Ok(())
    }
}

/// What to do to an edge list while turning it into a [`Csr`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// Add the reverse of every edge (with the same weight).
    pub symmetrize: bool,
    /// Drop edges `v -> v`.
    pub drop_self_loops: bool,
    /// Keep one edge per (source, destination) pair: the first one in input order.
    pub dedupe: bool,
}

/// Edges in input order, as loaders and generators produce them.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeList {
    pub num_nodes: u32,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub weights: Option<Weights>,
    pub labels: NodeLabels,
}

impl EdgeList {
    pub fn new(num_nodes: u32) -> Self {
        EdgeList { num_nodes, src: Vec::new(), dst: Vec::new(), weights: None, labels: NodeLabels::Offset(0) }
    }

    /// Builds the CSR: edges are sorted by (source, destination), stably, so equal pairs keep input order and
    /// `dedupe` keeps the first.
    ///
    /// Linear apart from the per-row sorts: edges are bucketed by source with a counting pass (stable), then each
    /// row is sorted by destination in parallel. Sorting one global index array by indirect keys instead takes
    /// minutes at 10^8 edges on two cores, almost all of it cache misses.
    pub fn into_csr(self, opts: BuildOptions) -> Csr {
        let EdgeList { num_nodes, mut src, mut dst, mut weights, labels } = self;
        assert_eq!(src.len(), dst.len(), "edge list halves differ in length");
        if opts.symmetrize {
            let (s0, d0) = (src.clone(), dst.clone());
            src.extend_from_slice(&d0);
            dst.extend_from_slice(&s0);
            weights = weights.map(Weights::doubled);
        }
        let n = num_nodes as usize;
        let keep = |i: usize| !(opts.drop_self_loops && src[i] == dst[i]);
        let mut row_start = vec![0u64; n + 1];
        for (i, &s) in src.iter().enumerate() {
            if keep(i) {
                row_start[s as usize + 1] += 1;
            }
        }
        for v in 0..n {
            row_start[v + 1] += row_start[v];
        }
        // Bucket edge indices by source, in input order.
        let mut order = vec![0usize; row_start[n] as usize];
        let mut next: Vec<u64> = row_start[..n].to_vec();
        for (i, &s) in src.iter().enumerate() {
            if keep(i) {
                order[next[s as usize] as usize] = i;
                next[s as usize] += 1;
            }
        }
        drop(next);
        // Sort every row by destination (stable: equal pairs stay in input order), in parallel.
        rows_of(&mut order, &row_start).par_iter_mut().for_each(|row| row.sort_by_key(|&i| dst[i]));
        if opts.dedupe {
            let mut kept = Vec::with_capacity(order.len());
            let mut new_start = vec![0u64; n + 1];
            for v in 0..n {
                let row = &order[row_start[v] as usize..row_start[v + 1] as usize];
                let mut last = None;
                for &i in row {
                    if last != Some(dst[i]) {
                        kept.push(i);
                        last = Some(dst[i]);
                    }
                }
                new_start[v + 1] = kept.len() as u64;
            }
            order = kept;
            row_start = new_start;
        }
        let col: Vec<u32> = order.par_iter().map(|&i| dst[i]).collect();
        let weights = weights.map(|w| w.permuted(&order));
        Csr::new(row_start, col, weights, labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_nodes_with_one_id_break_the_invariants() {
        let mut g = tiny().into_csr(BuildOptions::default());
        g.labels = NodeLabels::Explicit(vec![10, 20, 30, 40]);
        assert_eq!(g.check_invariants(), Ok(()));
        g.labels = NodeLabels::Explicit(vec![10, 77, 30, 77]);
        assert_eq!(g.check_invariants(), Err("two nodes have the id 77".to_string()));
    }

    fn tiny() -> EdgeList {
        let mut el = EdgeList::new(4);
        for (s, d) in [(0, 1), (1, 2), (1, 2), (2, 2), (3, 0)] {
            el.src.push(s);
            el.dst.push(d);
        }
        el.weights = Some(Weights::Int(vec![5, 6, 7, 8, 9].into()));
        el
    }

    #[test]
    fn builds_sorted_rows_with_weights() {
        let g = tiny().into_csr(BuildOptions::default());
        g.check_invariants().unwrap();
        assert_eq!(g.row_start, vec![0, 1, 3, 4, 5]);
        assert_eq!(g.col, vec![1, 2, 2, 2, 0]);
        assert_eq!(g.weights, Some(Weights::Int(vec![5, 6, 7, 8, 9].into())));
    }

    #[test]
    fn derived_arrays_are_kept_until_their_origin_changes() {
        let mut g = tiny().into_csr(BuildOptions::default());
        let src = g.shared_sources();
        assert_eq!(src, vec![0, 1, 1, 2, 3]);
        assert!(Shared::same(&src, &g.shared_sources()), "kept");
        assert!(Shared::same(&src, &g.clone().shared_sources()), "clones keep them too");
        // Node 0 loses its edge to node 1: the row offsets change, so the sources are computed again.
        g.row_start.make_mut()[1] = 0;
        assert_eq!(g.shared_sources(), vec![1, 1, 1, 2, 3]);

        let calls = std::cell::Cell::new(0);
        let convert = |g: &Csr| -> Result<Vec<u32>, ()> {
            calls.set(calls.get() + 1);
            Ok((0..g.col.len()).map(|e| g.weights.as_ref().unwrap().get_f64(e) as u32).collect())
        };
        let w = g.converted_weights("u32", convert).unwrap();
        assert_eq!(w, vec![5, 6, 7, 8, 9]);
        assert!(Shared::same(&w, &g.converted_weights("u32", convert).unwrap()));
        assert_eq!(calls.get(), 1, "converted once per type");
        g.converted_weights("i32", convert).unwrap();
        assert_eq!(calls.get(), 2);
        // New weights (even equal ones) are converted again; a failed conversion keeps nothing.
        g.weights = Some(Weights::Int(vec![5, 6, 7, 8, 1].into()));
        assert_eq!(g.converted_weights("u32", convert).unwrap(), vec![5, 6, 7, 8, 1]);
        assert_eq!(g.converted_weights("i32", |_| Err::<Vec<u32>, _>("bad")), Err("bad"));
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn an_unsorted_row_breaks_the_invariants() {
        let mut g = tiny().into_csr(BuildOptions::default());
        g.check_invariants().unwrap();
        // Node 1's row [2, 2] becomes [2, 1].
        g.col.make_mut()[2] = 1;
        assert_eq!(g.check_invariants().unwrap_err(), "the row of node 1 is not sorted by destination");
    }

    #[test]
    fn symmetrize_dedupe_and_self_loops() {
        let opts = BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true };
        let g = tiny().into_csr(opts);
        g.check_invariants().unwrap();
        assert_eq!(g.neighbors(0), &[1, 3]);
        assert_eq!(g.neighbors(1), &[0, 2]);
        assert_eq!(g.neighbors(2), &[1]);
        assert_eq!(g.neighbors(3), &[0]);
        // Dedupe keeps the first (1,2) edge, weight 6.
        let e = g.edge_range(1).start + 1;
        assert_eq!(g.weights.as_ref().unwrap().get_f64(e), 6.0);
        assert_eq!(g.sources(), vec![0, 0, 1, 1, 2, 3]);
    }
}
