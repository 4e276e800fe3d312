//! Fitting a graph to what its program declares (`graph G(undirected, simple, weight: T = D)`) before a run, so
//! that no program runs on a graph it would answer wrongly for: a directed graph given to a program that needs an
//! undirected one is symmetrized, self loops and repeated edges are dropped for one that needs a simple graph, and
//! an unweighted graph given to a program with a default weight gets that
//! weight on every edge. Each change comes back as a sentence for the run's summary; a program that reads
//! weights without a default still refuses an unweighted graph (see [`crate::memory::convert_weights`]).

use irgc_artifact::{Artifact, Scalar};
use irgc_graph::{Csr, Weights};

use crate::eval::{to_f64, to_i64};

/// A graph changed to fit its program, and what was changed.
#[derive(Debug)]
pub struct Fitted {
    /// The changed graph; `None` when the run uses the graph as it is and only a note applies (a `degree_ordered`
    /// numbering is made when the run starts, and kept with the caller's graph for its later runs).
    pub csr: Option<Csr>,
    /// One sentence per change, for the run's summary.
    pub notes: Vec<String>,
}

/// `graph` fitted to `artifact`'s declared needs, or `None` when it fits as it is and nothing is to be said (the
/// common case costs no copy). `renumbers`: whether the device the run goes to renumbers a `degree_ordered` program's graph
/// ([`Device::renumbers_by_degree`](crate::Device::renumbers_by_degree)), which only the summary's note depends on.
pub fn fit_graph(artifact: &Artifact, graph: &Csr, graph_name: &str, renumbers: bool) -> Option<Fitted> {
    let desc = artifact.graph.as_ref()?;
    let mut notes = Vec::new();
    let mut changed: Option<Csr> = None;
    if desc.undirected {
        if let Some((u, v)) = graph.missing_reverse_kept() {
            let (lu, lv) = (graph.labels.label(u), graph.labels.label(v));
            let before = graph.num_edges();
            let sym = graph.symmetrized();
            notes.push(format!(
                "symmetrized: the program needs an undirected graph and {graph_name} is directed ({lu} -> {lv} \
                 has no reverse); every edge's reverse added, self loops and duplicates dropped ({before} -> {} \
                 edges)",
                sym.num_edges()
            ));
            changed = Some(sym);
        }
    }
    // An undirected program that reads weights needs each edge to weigh the same both ways.
    if desc.undirected && desc.weight.is_some() {
        let current = changed.as_ref().unwrap_or(graph);
        if let Some((u, v, there, back)) = current.asymmetric_weight() {
            let (lu, lv) = (current.labels.label(u), current.labels.label(v));
            let fixed = current.undirected_min_weights();
            notes.push(format!(
                "weights made symmetric: {graph_name} weighs some edges differently in their two directions (or \
                 in parallel copies: {lu} -> {lv} weighs {there}, {lv} -> {lu} weighs {back}); each edge now \
                 weighs the smallest of its copies, as an undirected program needs"
            ));
            changed = Some(fixed);
        }
    }
    // Symmetrizing and the smallest weights above leave a simple graph; an input that needed neither may not be.
    if desc.simple {
        let current = changed.as_ref().unwrap_or(graph);
        if let Some((u, v)) = current.first_non_simple() {
            let (lu, lv) = (current.labels.label(u), current.labels.label(v));
            let what = if u == v { format!("a self loop at {lu}") } else { format!("{lu} -> {lv} more than once") };
            let before = current.num_edges();
            let simple = current.simplified();
            notes.push(format!(
                "made simple: the program needs a simple graph and {graph_name} has {what}; self loops and \
                 repeated edges dropped, the lightest of each repeat kept ({before} -> {} edges)",
                simple.num_edges()
            ));
            changed = Some(simple);
        }
    }
    if desc.degree_ordered && renumbers && changed.as_ref().unwrap_or(graph).degrees_skewed() {
        notes.push(format!(
            "numbered by degree: {graph_name}'s degrees are skewed, so the program, which declares \
             `degree_ordered`, runs on it with its nodes numbered by decreasing degree (outputs are per input node)"
        ));
    }
    let weightless = changed.as_ref().unwrap_or(graph).weights.is_none();
    if let (Some(ty), Some(bits), true) = (desc.weight, desc.default_weight, weightless) {
        let mut graph = changed.take().unwrap_or_else(|| graph.clone());
        let m = graph.col.len();
        let text = crate::output::format_value(ty, bits, "inf");
        graph.weights = Some(match ty {
            Scalar::F32 | Scalar::F64 => Weights::Float(vec![to_f64(ty, bits); m].into()),
            _ => Weights::Int(vec![to_i64(ty, bits); m].into()),
        });
        notes.push(format!("weights: {graph_name} has none; every edge weighs {text}, the program's default"));
        changed = Some(graph);
    }
    (changed.is_some() || !notes.is_empty()).then_some(Fitted { csr: changed, notes })
}

/// A warning when `graph`'s weights can make a shortest-path distance overflow the integer type of an `sssp`
/// output (distances wrap, as all integer arithmetic does, and the answer would be silently wrong). The bound is
/// exact enough to stay quiet on ordinary inputs: a shortest path visits each node once, so no distance exceeds
/// the sum over nodes of each node's largest out-weight. Whether some distance really overflows is only known
/// after the run; `--verify` (whose reference computes in wide integers) tells.
pub fn overflow_warning(artifact: &Artifact, graph: &Csr) -> Option<String> {
    // Only an integer `sssp` output can overflow: find it before reading every weight (kron22's 128 M took 0.2 s).
    let ty = artifact.outputs.iter().find_map(|o| {
        let elem = artifact.globals.get(o.global)?.elem;
        let int = !matches!(elem, Scalar::F32 | Scalar::F64 | Scalar::Bool | Scalar::Node | Scalar::Edge);
        matches!(o.check, Some(irgc_artifact::CheckDesc::Sssp { .. })).then_some(elem).filter(|_| int)
    })?;
    let (bound, max) = match graph.weights.as_ref()? {
        Weights::Int(w) => path_bound(graph, w),
        Weights::U32(w) => path_bound(graph, w),
        Weights::Float(_) => return None,
    };
    // The largest distance the type holds below `inf`, which marks unreached nodes.
    let limit = ty.inf_bits() as u128 - 1;
    (bound > limit).then(|| {
        format!(
            "weights up to {max} can make a distance exceed {ty}'s largest value {limit} (a path can total up to \
             {bound}): such distances wrap around; run with --verify to check the answer, or give smaller weights"
        )
    })
}

/// The sum over nodes of each node's largest (non-negative) out-weight, which bounds every shortest distance, and the
/// largest weight.
fn path_bound<T: Copy + Ord + Into<i64>>(graph: &Csr, w: &[T]) -> (u128, i64) {
    let rows = graph.row_start.windows(2);
    let bound =
        rows.map(|r| w[r[0] as usize..r[1] as usize].iter().max().map_or(0, |&x| x.into().max(0) as u128)).sum();
    (bound, w.iter().max().map_or(0, |&x| x.into()))
}
