//! `G.contract(label)`: the plan replaces the graph by its quotient under a node array of group labels — the
//! step that makes Louvain multi-level (each community becomes a node) and that Borůvka or k-core would use.
//!
//! The new graph has one node per distinct label, numbered in the labels' order (so the group whose label is the
//! smallest node becomes node 0), and an edge from group `a` to group `b` wherever some edge led from a member of
//! `a` to a member of `b`; parallel edges are merged into one whose weight is the sum of theirs (wrapping for
//! integers, rounded for floats), and a group's inner edges become one self loop carrying their total. Rows stay
//! sorted by destination, as every graph's do. Without weights, parallel edges are merged into one.
//!
//! The work runs on the host over arrays read back from the device, and the new graph is uploaded (on the CPU
//! backend "device" memory is host memory, so nothing moves). It costs one sort of the edges; on a GPU also the
//! transfers. A device-side contraction (a scan and a segmented sort in kernels) is not built.
//!
//! The run keeps, on the host, each original node's group in the current graph ([`Memory::origin`]), so outputs
//! are still written per node of the input file: see [`crate::output`].

use irgc_artifact::Scalar;
use rayon::prelude::*;

use crate::device::Device;
use crate::error::RunError;
use crate::eval::{from_f64, to_f64};
use crate::memory::{GlobalShape, Memory};

/// Contracts `mem`'s graph by global `label` (a node array of nodes), in place: the graph's buffers, node and
/// edge arrays (their first elements, zeroed, now the whole array) and worklists (emptied); `weight_ty` is the
/// type the weights are stored in.
pub(crate) fn contract<D: Device>(
    dev: &mut D,
    mem: &mut Memory<D::Buffer>,
    label: usize,
    weight_ty: Option<Scalar>,
) -> Result<(), RunError> {
    let (n, m) = (mem.num_nodes, mem.num_edges);
    let g = mem.globals.get(label).ok_or_else(|| RunError::plan(format!("`G.contract` by missing array #{label}")))?;
    let name = g.name.clone();
    let labels = dev.read(&g.buf, 4, 0, n)?;
    if let Some(v) = labels.iter().position(|&l| l >= n) {
        return Err(RunError::plan(format!(
            "`G.contract({name})`: node #{v}'s group is {}, which is not a node (the graph has {n}); every node must \
             be labelled with a node of its group",
            labels[v]
        )));
    }
    // Dense ids for the labels in use, in label order.
    let mut id = vec![u32::MAX; n as usize];
    for &l in &labels {
        id[l as usize] = 0;
    }
    let mut k = 0u32;
    for slot in id.iter_mut().filter(|s| **s == 0) {
        *slot = k;
        k += 1;
    }
    let group: Vec<u32> = labels.iter().map(|&l| id[l as usize]).collect();

    let row_start = dev.read(&mem.row_start, 8, 0, n + 1)?;
    let col = dev.read(&mem.col, 4, 0, m)?;
    let weights = match (&mem.weights, weight_ty) {
        (Some(b), Some(ty)) => Some((dev.read(b, ty.size(), 0, m)?, ty)),
        _ => None,
    };
    // Every edge as (source group << 32 | destination group, its edge index), sorted: equal keys are merged.
    let mut source = vec![0u32; m as usize];
    for u in 0..n as usize {
        source[row_start[u] as usize..row_start[u + 1] as usize].fill(group[u]);
    }
    let mut keyed: Vec<(u64, u64)> = (0..m as usize)
        .into_par_iter()
        .map(|e| ((source[e] as u64) << 32 | group[col[e] as usize] as u64, e as u64))
        .collect();
    drop(source);
    keyed.par_sort_unstable();
    let mut new_col = Vec::new();
    let mut new_w = Vec::new();
    let mut new_src = Vec::new();
    let mut counts = vec![0u64; k as usize + 1];
    let mut i = 0;
    while i < keyed.len() {
        let key = keyed[i].0;
        let mut j = i;
        let mut total = 0u64;
        while j < keyed.len() && keyed[j].0 == key {
            if let Some((w, ty)) = &weights {
                total = add(*ty, total, w[keyed[j].1 as usize]);
            }
            j += 1;
        }
        let (src, dst) = ((key >> 32) as u32, key as u32);
        counts[src as usize + 1] += 1;
        new_src.push(src as u64);
        new_col.push(dst as u64);
        new_w.push(total);
        i = j;
    }
    drop(keyed);
    for v in 0..k as usize {
        counts[v + 1] += counts[v];
    }
    let new_m = new_col.len() as u64;
    mem.max_degree = counts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    // The quotient is never larger than the graph, so every buffer is reused (no allocation, and on a GPU no
    // `cuMemAlloc`/`cuMemFree` per array and level): only the first elements are rewritten, and the sizes in the
    // context say how many count.
    dev.write(&mut mem.row_start, 8, 0, &counts)?;
    dev.write(&mut mem.col, 4, 0, &new_col)?;
    if let (Some(buf), Some((_, ty))) = (&mut mem.weights, &weights) {
        dev.write(buf, ty.size(), 0, &new_w)?;
    }
    if let Some(buf) = &mut mem.sources {
        dev.write(buf, 4, 0, &new_src)?;
    }
    mem.num_nodes = k as u64;
    mem.num_edges = new_m;
    for g in mem.globals.iter_mut() {
        let len = match g.shape {
            GlobalShape::Node => k as u64,
            GlobalShape::Edge => new_m,
            GlobalShape::Dense => continue,
        };
        dev.fill(&mut g.buf, g.elem.size(), len, 0)?;
        g.dims = [len, 1];
    }
    for w in mem.worklists.iter_mut() {
        w.count = 0;
    }
    mem.origin = Some(match mem.origin.take() {
        None => group,
        Some(origin) => origin.par_iter().map(|&c| group[c as usize]).collect(),
    });
    Ok(())
}

/// `a + b` in weight type `ty`, as bits: integers wrap, floats round in their precision.
fn add(ty: Scalar, a: u64, b: u64) -> u64 {
    match ty {
        Scalar::F32 | Scalar::F64 => from_f64(ty, to_f64(ty, a) + to_f64(ty, b)),
        _ => crate::eval::normalize(ty, a.wrapping_add(b)),
    }
}
