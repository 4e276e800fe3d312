//! `G.contract(label)`: the plan replaces the graph by its quotient under a node array of group labels — the
//! step that makes Louvain multi-level (each community becomes a node) and that Borůvka or k-core would use.
//!
//! The new graph has one node per distinct label, numbered in the labels' order (so the group whose label is the
//! smallest node becomes node 0), and an edge from group `a` to group `b` wherever some edge led from a member of
//! `a` to a member of `b`; parallel edges are merged into one whose weight is the sum of theirs (wrapping for
//! integers, rounded for floats), and a group's inner edges become one self loop carrying their total. Without
//! weights, parallel edges are merged into one.
//!
//! A device that contracts (a GPU: [`Device::contract`], `irgc-cuda`'s `contract.rs`) does it all in its own
//! memory — numbering the groups, building the new graph in its buffers, keeping each input node's node — and
//! returns only the counts; its rows are in no particular order, and parallel edges' float weights summed in any
//! order. Otherwise (the CPU, or a GPU without the memory for its scratch) the labels come back to the host, which
//! numbers the groups, builds the quotient and writes it into the old graph's buffers (on the CPU "device" memory
//! is host memory, so nothing moves): a counting sort of the nodes by group and one walk over each group's edges
//! (groups in parallel batches), merging them by destination group as it goes, rows sorted. The graph is not read
//! back where the host has it: a contracting plan's memory keeps the input's arrays ([`Memory::host_graph`]),
//! then each host-built quotient's, because reading a large graph back cost more than building the quotient
//! (rgg22 on an H100: 766 of 931 ms).
//!
//! The run keeps each original node's group in the current graph ([`Memory::origin`] on the host, or on the
//! device that contracted), so outputs are still written per node of the input file: see [`crate::output`].

use irgc_artifact::Scalar;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::device::{ContractJob, Contracted, Device};
use crate::error::RunError;
use crate::eval::{from_f64, to_f64};
use crate::memory::{GlobalShape, HostEdges, HostGraph, Memory};
use crate::stats::ContractPhases;
use irgc_graph::Shared;

/// Contracts `mem`'s graph by global `label` (a node array of nodes), in place: the graph's buffers, node and
/// edge arrays (their first elements, zeroed, now the whole array) and worklists (emptied); `weight_ty` is the
/// type the weights are stored in. Returns where the time went.
pub(crate) fn contract<D: Device>(
    dev: &mut D,
    mem: &mut Memory<D::Buffer>,
    label: usize,
    weight_ty: Option<Scalar>,
) -> Result<ContractPhases, RunError> {
    let mut clock = Clock(Instant::now());
    let n = mem.num_nodes;
    let name = mem
        .globals
        .get(label)
        .ok_or_else(|| RunError::plan(format!("`G.contract` by missing array #{label}")))?
        .name
        .clone();
    let nth = mem.contractions;
    mem.contractions += 1;
    if dev.contracts_on_device() && forced_place(nth) != Some('h') {
        if let Some(phases) = on_device(dev, mem, label, weight_ty, &name, &mut clock)? {
            return Ok(phases);
        }
    }
    // The host's turn: each input node's node comes to the host if the device kept it.
    if let Some((buf, inputs)) = mem.device_origin.take() {
        mem.origin = Some(dev.read_u32(&buf, 0, inputs)?);
    }
    let labels = dev.read_u32(&mem.globals[label].buf, 0, n)?;
    if let Some(v) = labels.par_iter().position_first(|&l| u64::from(l) >= n) {
        return Err(bad_label(&name, v as u64, labels[v], n));
    }
    let (group, k) = dense_groups(&labels);
    drop(labels);
    // The graph as the host has it (a contracting plan's memory keeps it, unless the device contracted last),
    // else read back from the device.
    let host = mem.host_graph.take();
    let row_start = match &host {
        Some(h) => h.row_start.clone(),
        None => Shared::from(dev.read(&mem.row_start, 8, 0, n + 1)?),
    };
    let host_edges = match host.and_then(|h| h.edges) {
        Some(e) => e,
        None => read_edges(dev, mem, weight_ty)?,
    };
    let labels_s = clock.lap();
    let (counts, new_edges, quotient_s) = on_host(dev, mem, weight_ty, &row_start, host_edges, &group, k)?;
    drop(row_start);
    let new_m = counts.last().copied().unwrap_or(0);
    mem.max_degree = counts.par_windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    if let Some(buf) = &mut mem.sources {
        // Each edge's source group (only for a program that reads `G.src`).
        dev.write_u32(buf, 0, &edge_sources(&counts))?;
    }
    let upload_s = clock.lap() - quotient_s;
    // The host keeps the new graph where the device cannot contract; a device that declined this one (for lack
    // of memory) may contract the next, and the host reads the graph back if it does not.
    let edges = (!dev.contracts_on_device()).then_some(new_edges);
    mem.host_graph = Some(HostGraph { row_start: Shared::from(counts), edges });
    reset(dev, mem, u64::from(k), new_m)?;
    mem.origin = Some(match mem.origin.take() {
        None => group,
        Some(origin) => origin.par_iter().map(|&c| group[c as usize]).collect(),
    });
    Ok(ContractPhases {
        labels: labels_s,
        quotient: quotient_s,
        upload: upload_s,
        reset: clock.lap(),
        on_device: false,
    })
}

/// The error for node `v`'s label `l`, which is no node of the `n`.
fn bad_label(name: &str, v: u64, l: u32, n: u64) -> RunError {
    RunError::plan(format!(
        "`G.contract({name})`: node #{v}'s group is {l}, which is not a node (the graph has {n}); every node must be \
         labelled with a node of its group"
    ))
}

/// The new graph's sizes in `mem`, its node and edge arrays zeroed (their first elements, now the whole array)
/// and its worklists emptied.
fn reset<D: Device>(dev: &mut D, mem: &mut Memory<D::Buffer>, k: u64, new_m: u64) -> Result<(), RunError> {
    mem.num_nodes = k;
    mem.num_edges = new_m;
    for g in mem.globals.iter_mut() {
        let len = match g.shape {
            GlobalShape::Node => k,
            GlobalShape::Edge => new_m,
            GlobalShape::Dense => continue,
        };
        dev.fill(&mut g.buf, g.elem.size(), len, 0)?;
        g.dims = [len, 1];
    }
    for w in mem.worklists.iter_mut() {
        w.count = 0;
    }
    Ok(())
}

/// The contraction done by the device ([`Device::contract`]), and checked against the host's under
/// [`CHECK_QUOTIENTS`]: its phases, or `None` where the device declined (nothing changed).
fn on_device<D: Device>(
    dev: &mut D,
    mem: &mut Memory<D::Buffer>,
    label: usize,
    weight_ty: Option<Scalar>,
    name: &str,
    clock: &mut Clock,
) -> Result<Option<ContractPhases>, RunError> {
    let n = mem.num_nodes;
    // Checking the device against the host (tests): the host's numbering and quotient of the graph as it is now.
    let expected = if std::env::var_os(CHECK_QUOTIENTS).is_some() {
        let labels = dev.read_u32(&mem.globals[label].buf, 0, n)?;
        if labels.iter().all(|&l| u64::from(l) < n) {
            let (group, k) = dense_groups(&labels);
            let row_start = dev.read(&mem.row_start, 8, 0, n + 1)?;
            let old = read_edges(dev, mem, weight_ty)?;
            let weights = old.weights.as_ref().map(|w| w.as_slice()).zip(weight_ty);
            let rows =
                quotient_rows(&Rows { row_start: &row_start, col: &old.col, group: &group, weights }, k as usize);
            Some((group, rows))
        } else {
            None
        }
    } else {
        None
    };
    let (mut origin, inputs) = match mem.device_origin.take() {
        Some((buf, inputs)) => (Some(buf), inputs),
        None => (None, mem.origin.as_ref().map_or(n, |o| o.len() as u64)),
    };
    let done = dev.contract(ContractJob {
        labels: &mem.globals[label].buf,
        row_start: &mut mem.row_start,
        col: &mut mem.col,
        weights: mem.weights.as_mut().zip(weight_ty),
        sources: mem.sources.as_mut(),
        num_nodes: n,
        num_edges: mem.num_edges,
        origin: &mut origin,
        host_origin: mem.origin.as_deref(),
        input_nodes: inputs,
        memory_left: mem.memory_left,
        return_groups: expected.is_some(),
    });
    mem.device_origin = origin.map(|buf| (buf, inputs));
    let (k, new_m, max_degree, group, numbering_s) = match done? {
        Contracted::Declined => return Ok(None),
        Contracted::BadLabel { node, label } => return Err(bad_label(name, node, label as u32, n)),
        Contracted::Built { groups, edges, max_degree, group, numbering_s } => {
            (groups, edges, max_degree, group, numbering_s)
        }
    };
    if let (Some((want, rows)), Some(got)) = (expected, group) {
        if got != want {
            let v = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
            return Err(RunError::Device(format!(
                "{CHECK_QUOTIENTS}: the device put node {v} in group {:?}, the host in {:?}",
                got.get(v),
                want.get(v)
            )));
        }
        let counts = dev.read(&mem.row_start, 8, 0, k + 1)?;
        check_quotient(dev, mem, weight_ty, &counts, rows)?;
    }
    // The input's nodes are the device's now; the host's copy of the graph is stale.
    mem.origin = None;
    mem.host_graph = None;
    mem.max_degree = max_degree;
    let total = clock.lap();
    reset(dev, mem, k, new_m)?;
    Ok(Some(ContractPhases {
        labels: numbering_s,
        quotient: total - numbering_s,
        upload: 0.0,
        reset: clock.lap(),
        on_device: true,
    }))
}

/// The quotient built on the host from `edges` (the current graph's, with its row offsets `row_start`) and written
/// into the graph's buffers: the new row offsets, the new edges, and the seconds the building took.
fn on_host<D: Device>(
    dev: &mut D,
    mem: &mut Memory<D::Buffer>,
    weight_ty: Option<Scalar>,
    row_start: &[u64],
    edges: HostEdges,
    group: &[u32],
    k: u32,
) -> Result<(Vec<u64>, HostEdges, f64), RunError> {
    let started = Instant::now();
    let weights = edges.weights.as_ref().map(|w| w.as_slice()).zip(weight_ty);
    let (new_col, new_w, counts) = quotient_rows(&Rows { row_start, col: &edges.col, group, weights }, k as usize);
    let weight_ty = weights.map(|(_, ty)| ty);
    drop(edges);
    let quotient_s = started.elapsed().as_secs_f64();
    // The quotient is never larger than the graph, so every buffer is reused (no allocation, and on a GPU no
    // `cuMemAlloc`/`cuMemFree` per array and level): only the first elements are rewritten, and the sizes in the
    // context say how many count.
    dev.write(&mut mem.row_start, 8, 0, &counts)?;
    dev.write_u32(&mut mem.col, 0, &new_col)?;
    if let (Some(buf), Some(ty)) = (&mut mem.weights, weight_ty) {
        dev.write(buf, ty.size(), 0, &new_w)?;
    }
    let new_edges = HostEdges { col: Shared::from(new_col), weights: weight_ty.map(|_| Shared::from(new_w)) };
    Ok((counts, new_edges, quotient_s))
}

/// Set (to anything) in the environment, every quotient a device builds is compared with the host's (rows as
/// sets; float weights within a relative 1e-9, as the device sums them in another order), and a difference is an
/// error: what the GPU tests of `G.contract` run with (`scripts/gpu-louvain.sh`). It reads the graph back, so
/// timings with it are not representative.
pub const CHECK_QUOTIENTS: &str = "IRGC_CHECK_QUOTIENTS";

/// Set to a word of `d`s and `h`s, a device that contracts does the run's `i`-th contraction itself for a `d` at
/// place `i` and leaves it to the host for an `h` (past the word's end, as usual): how the GPU tests make the
/// device and the host hand over to each other mid-run (each input node's node moving between them), which
/// otherwise happens only when a GPU runs short of memory for one level.
pub const CONTRACT_ON: &str = "IRGC_CONTRACT_ON";

/// What [`CONTRACT_ON`] says of the `nth` contraction.
fn forced_place(nth: usize) -> Option<char> {
    std::env::var(CONTRACT_ON).ok().and_then(|word| word.chars().nth(nth))
}

/// The current graph's edges, read back from the device.
fn read_edges<D: Device>(dev: &D, mem: &Memory<D::Buffer>, weight_ty: Option<Scalar>) -> Result<HostEdges, RunError> {
    let m = mem.num_edges;
    Ok(HostEdges {
        col: Shared::from(dev.read(&mem.col, 4, 0, m)?.into_iter().map(|c| c as u32).collect::<Vec<_>>()),
        weights: match (&mem.weights, weight_ty) {
            (Some(b), Some(ty)) => Some(Shared::from(dev.read(b, ty.size(), 0, m)?)),
            _ => None,
        },
    })
}

/// Compares the quotient the device built (row offsets `counts`, its edges in the graph's buffers) with the host's
/// `expected` ([`quotient_rows`]: columns, weights, offsets); see [`CHECK_QUOTIENTS`].
fn check_quotient<D: Device>(
    dev: &D,
    mem: &Memory<D::Buffer>,
    weight_ty: Option<Scalar>,
    counts: &[u64],
    (col, w, offsets): (Vec<u32>, Vec<u64>, Vec<u64>),
) -> Result<(), RunError> {
    let wrong = |what: String| Err(RunError::Device(format!("{CHECK_QUOTIENTS}: the device's quotient {what}")));
    if counts != offsets.as_slice() {
        let g = counts.iter().zip(&offsets).position(|(a, b)| a != b).unwrap_or(0);
        return wrong(format!("has row offset {:?} for group {g}, the host's {:?}", counts.get(g), offsets.get(g)));
    }
    let m = offsets.last().copied().unwrap_or(0);
    let got_col = dev.read(&mem.col, 4, 0, m)?;
    let got_w = match (&mem.weights, weight_ty) {
        (Some(b), Some(ty)) => Some((dev.read(b, ty.size(), 0, m)?, ty)),
        _ => None,
    };
    for g in 0..offsets.len() - 1 {
        let (a, b) = (offsets[g] as usize, offsets[g + 1] as usize);
        let mut row: Vec<(u64, u64)> = (a..b).map(|e| (got_col[e], got_w.as_ref().map_or(0, |(w, _)| w[e]))).collect();
        row.sort_unstable();
        for (i, &(c, bits)) in row.iter().enumerate() {
            if c != u64::from(col[a + i]) {
                return wrong(format!("row {g} has destinations {:?}, the host's {:?}", row, &col[a..b]));
            }
            if let Some((_, ty)) = got_w {
                let (got, want) = (to_f64(ty, bits), to_f64(ty, w[a + i]));
                let mask = if ty.size() >= 8 { u64::MAX } else { (1u64 << (8 * ty.size())) - 1 };
                let close = if ty.is_float() {
                    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
                } else {
                    (bits ^ w[a + i]) & mask == 0
                };
                if !close {
                    return wrong(format!("row {g}'s edge to {c} weighs {got}, the host's {want}"));
                }
            }
        }
    }
    Ok(())
}

/// Seconds since the last lap.
struct Clock(Instant);

impl Clock {
    fn lap(&mut self) -> f64 {
        let now = Instant::now();
        let s = now.duration_since(self.0).as_secs_f64();
        self.0 = now;
        s
    }
}

/// Each node's group, numbered densely in the order of the labels in use (so the group labelled by the smallest
/// node is 0), and the number of groups. In parallel: the labels in use are marked (a random write per node), then
/// counted and numbered in chunks (it was one walk over all nodes on one thread).
fn dense_groups(labels: &[u32]) -> (Vec<u32>, u32) {
    const CHUNK: usize = 1 << 16;
    let used: Vec<AtomicBool> = (0..labels.len()).into_par_iter().map(|_| AtomicBool::new(false)).collect();
    labels.par_iter().for_each(|&l| used[l as usize].store(true, Ordering::Relaxed));
    let per_chunk: Vec<u32> =
        used.par_chunks(CHUNK).map(|c| c.iter().filter(|u| u.load(Ordering::Relaxed)).count() as u32).collect();
    let mut firsts = Vec::with_capacity(per_chunk.len());
    let mut k = 0u32;
    for c in per_chunk {
        firsts.push(k);
        k += c;
    }
    let mut id = vec![0u32; labels.len()];
    id.par_chunks_mut(CHUNK).zip(used.par_chunks(CHUNK)).zip(firsts).for_each(|((ids, used), mut next)| {
        for (slot, used) in ids.iter_mut().zip(used) {
            if used.load(Ordering::Relaxed) {
                *slot = next;
                next += 1;
            }
        }
    });
    drop(used);
    (labels.par_iter().map(|&l| id[l as usize]).collect(), k)
}

/// Each edge's source node, from the row offsets: in parallel chunks of edges, each finding its first row by a
/// binary search (written one row after another, kron22's first quotient took 590 ms on a 32-core host).
fn edge_sources(row_start: &[u64]) -> Vec<u32> {
    const CHUNK: usize = 1 << 16;
    let m = row_start.last().copied().unwrap_or(0) as usize;
    let mut src = vec![0u32; m];
    src.par_chunks_mut(CHUNK).enumerate().for_each(|(i, chunk)| {
        let first = (i * CHUNK) as u64;
        // The row holding edge `first`: the last whose start is at or below it.
        let mut row = row_start.partition_point(|&s| s <= first) - 1;
        for (e, slot) in (first..).zip(chunk.iter_mut()) {
            while row_start[row + 1] <= e {
                row += 1;
            }
            *slot = row as u32;
        }
    });
    src
}

/// The graph's rows (weights as bits of their type) and each node's group.
struct Rows<'a> {
    row_start: &'a [u64],
    col: &'a [u32],
    group: &'a [u32],
    weights: Option<(&'a [u64], Scalar)>,
}

/// The quotient's rows: its columns (sorted within each row), merged weights (summed in edge order; zeros without
/// weights) and row offsets (`k + 1`). Nodes are bucketed by group (a counting sort), then groups are handled in
/// parallel batches of about equal edge counts: each walks its members' edges and merges them by destination group
/// as it goes, with a per-batch table of where each destination's entry is in the row (reset by the group that set
/// it), then sorts only the row's distinct destinations. O(m) plus a sort of each new row, instead of a sort of each
/// group's edges.
fn quotient_rows(r: &Rows<'_>, k: usize) -> (Vec<u32>, Vec<u64>, Vec<u64>) {
    let n = r.group.len();
    // Members of each group, in node order.
    let mut first = vec![0usize; k + 1];
    for &g in r.group {
        first[g as usize + 1] += 1;
    }
    for g in 0..k {
        first[g + 1] += first[g];
    }
    let mut members = vec![0u32; n];
    let mut next = first.clone();
    for (v, &g) in r.group.iter().enumerate() {
        members[next[g as usize]] = v as u32;
        next[g as usize] += 1;
    }
    drop(next);
    let degree = |v: u32| r.row_start[v as usize + 1] - r.row_start[v as usize];
    // Batches of consecutive groups with about m / (64 threads) edges each (each group's edges counted in parallel:
    // a random read per node).
    let edges_of: Vec<u64> =
        (0..k).into_par_iter().map(|g| members[first[g]..first[g + 1]].iter().map(|&v| degree(v)).sum()).collect();
    let m = r.col.len() as u64;
    let target = (m / (64 * rayon::current_num_threads() as u64)).max(4096);
    let mut batches = Vec::new();
    let (mut start, mut edges) = (0usize, 0u64);
    for (g, e) in edges_of.iter().enumerate() {
        edges += e;
        if edges >= target || g + 1 == k {
            batches.push(start..g + 1);
            start = g + 1;
            edges = 0;
        }
    }
    // Per worker thread: where destination d's entry is in the current row (u32::MAX: none yet). One table per
    // thread, not per batch (`map_init` may call its init once per batch, and a table is k entries).
    let tables: Vec<std::sync::Mutex<Vec<u32>>> =
        (0..rayon::current_num_threads()).map(|_| std::sync::Mutex::new(Vec::new())).collect();
    let parts: Vec<(Vec<u32>, Vec<u64>, Vec<u64>)> = batches
        .into_par_iter()
        .map(|groups| {
            let mut table = tables[rayon::current_thread_index().unwrap_or(0) % tables.len()]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if table.len() != k {
                *table = vec![u32::MAX; k];
            }
            let at = &mut *table;
            let (mut cols, mut ws, mut lens) = (Vec::new(), Vec::new(), Vec::with_capacity(groups.len()));
            let mut row: Vec<(u32, u64)> = Vec::new();
            for g in groups {
                row.clear();
                for &v in &members[first[g]..first[g + 1]] {
                    for e in r.row_start[v as usize]..r.row_start[v as usize + 1] {
                        let d = r.group[r.col[e as usize] as usize];
                        let w = r.weights.map_or(0, |(w, _)| w[e as usize]);
                        match at[d as usize] {
                            u32::MAX => {
                                at[d as usize] = row.len() as u32;
                                row.push((d, w));
                            }
                            i => {
                                if let Some((_, ty)) = r.weights {
                                    let entry = &mut row[i as usize];
                                    entry.1 = add(ty, entry.1, w);
                                }
                            }
                        }
                    }
                }
                for &(d, _) in &row {
                    at[d as usize] = u32::MAX;
                }
                row.sort_unstable_by_key(|&(d, _)| d);
                cols.extend(row.iter().map(|&(d, _)| d));
                ws.extend(row.iter().map(|&(_, w)| w));
                lens.push(row.len() as u64);
            }
            (cols, ws, lens)
        })
        .collect();
    // The batches' rows side by side: each batch copies its part into its own slices, in parallel (a sequential
    // concatenation cost road's first level 20 ms).
    let total: usize = parts.iter().map(|p| p.0.len()).sum();
    let (mut new_col, mut new_w, mut counts) = (vec![0u32; total], vec![0u64; total], vec![0u64; k + 1]);
    let mut pieces = Vec::with_capacity(parts.len());
    let (mut cols, mut ws, mut ends, mut first_edge) = (&mut new_col[..], &mut new_w[..], &mut counts[1..], 0u64);
    for (c, _, lens) in &parts {
        let (col_piece, col_rest) = std::mem::take(&mut cols).split_at_mut(c.len());
        let (w_piece, w_rest) = std::mem::take(&mut ws).split_at_mut(c.len());
        let (end_piece, end_rest) = std::mem::take(&mut ends).split_at_mut(lens.len());
        pieces.push((col_piece, w_piece, end_piece, first_edge));
        (cols, ws, ends) = (col_rest, w_rest, end_rest);
        first_edge += c.len() as u64;
    }
    debug_assert!(ends.is_empty(), "the batches cover every group");
    parts.into_par_iter().zip(pieces).for_each(|((c, w, lens), (col_piece, w_piece, end_piece, first_edge))| {
        col_piece.copy_from_slice(&c);
        w_piece.copy_from_slice(&w);
        let mut end = first_edge;
        for (slot, len) in end_piece.iter_mut().zip(lens) {
            end += len;
            *slot = end;
        }
    });
    (new_col, new_w, counts)
}

/// `a + b` in weight type `ty`, as bits: integers wrap, floats round in their precision.
fn add(ty: Scalar, a: u64, b: u64) -> u64 {
    match ty {
        Scalar::F32 | Scalar::F64 => from_f64(ty, to_f64(ty, a) + to_f64(ty, b)),
        _ => crate::eval::normalize(ty, a.wrapping_add(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The quotient by a map from (source group, destination group) to the weights summed in edge order: the
    /// plain definition, against the bucketed, parallel one.
    fn reference(r: &Rows<'_>, k: usize) -> (Vec<u32>, Vec<u64>, Vec<u64>) {
        let mut merged: BTreeMap<(u32, u32), u64> = BTreeMap::new();
        for v in 0..r.group.len() {
            for e in r.row_start[v]..r.row_start[v + 1] {
                let key = (r.group[v], r.group[r.col[e as usize] as usize]);
                let total = merged.entry(key).or_insert(0);
                if let Some((w, ty)) = r.weights {
                    *total = add(ty, *total, w[e as usize]);
                }
            }
        }
        let mut counts = vec![0u64; k + 1];
        for &(s, _) in merged.keys() {
            counts[s as usize + 1] += 1;
        }
        for g in 0..k {
            counts[g + 1] += counts[g];
        }
        (merged.keys().map(|&(_, d)| d).collect(), merged.values().copied().collect(), counts)
    }

    #[test]
    fn groups_are_numbered_densely_in_label_order_across_chunks() {
        assert_eq!(super::dense_groups(&[5, 5, 2, 9, 2, 0, 0, 0, 0, 0]), (vec![2, 2, 1, 3, 1, 0, 0, 0, 0, 0], 4));
        // Labels spread over several numbering chunks, some chunks with no label in use.
        let n = 3 * (1 << 16) + 5;
        let labels: Vec<u32> = (0..n as u64).map(|v| ((v * 7919) % n as u64 / 5 * 5) as u32).collect();
        let mut used = vec![false; n];
        labels.iter().for_each(|&l| used[l as usize] = true);
        let mut id = vec![0u32; n];
        let mut k = 0;
        for (slot, &u) in id.iter_mut().zip(&used) {
            if u {
                *slot = k;
                k += 1;
            }
        }
        let want: Vec<u32> = labels.iter().map(|&l| id[l as usize]).collect();
        assert_eq!(super::dense_groups(&labels), (want, k));
    }

    #[test]
    fn edge_sources_follow_the_rows_across_chunks_and_empty_rows() {
        // Rows of 0, 70,000 (crossing the first chunk's end), 0, 1 and 65,535 edges, and an empty last row.
        let lens = [0u64, 70_000, 0, 1, 65_535, 0];
        let mut row_start = vec![0u64];
        for l in lens {
            row_start.push(row_start.last().unwrap() + l);
        }
        let want: Vec<u32> =
            lens.iter().enumerate().flat_map(|(r, &l)| std::iter::repeat_n(r as u32, l as usize)).collect();
        assert_eq!(edge_sources(&row_start), want);
        assert!(edge_sources(&[0]).is_empty());
    }

    #[test]
    fn the_bucketed_quotient_equals_the_merged_edge_map() {
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        for (n, m, k) in
            [(1usize, 0usize, 1usize), (50, 400, 7), (300, 5000, 40), (2000, 30000, 1500), (500, 4000, 500)]
        {
            let mut edges: Vec<(u64, u64)> = (0..m).map(|_| (next(n as u64), next(n as u64))).collect();
            edges.sort_unstable();
            let mut row_start = vec![0u64; n + 1];
            for &(s, _) in &edges {
                row_start[s as usize + 1] += 1;
            }
            for v in 0..n {
                row_start[v + 1] += row_start[v];
            }
            let col: Vec<u32> = edges.iter().map(|e| e.1 as u32).collect();
            // Every group used (dense ids), the rest random.
            let group: Vec<u32> = (0..n).map(|v| if v < k { v as u32 } else { next(k as u64) as u32 }).collect();
            let w: Vec<u64> = (0..m).map(|_| from_f64(Scalar::F64, next(1000) as f64 / 7.0)).collect();
            for weights in [None, Some((w.as_slice(), Scalar::F64))] {
                let r = Rows { row_start: &row_start, col: &col, group: &group, weights };
                assert_eq!(quotient_rows(&r, k), reference(&r, k), "n {n}, m {m}, k {k}");
            }
        }
    }
}
