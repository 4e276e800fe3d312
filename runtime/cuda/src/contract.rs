//! `G.contract` on the GPU, end to end in device memory ([`irgc_runtime::Device::contract`]): the groups numbered
//! (`groups.rs`, `scan.rs`), the quotient built (`quotient.rs`), each input node's node kept (`groups.rs`), with
//! only counts crossing to the host — the chunk sums of three prefix sums, the first bad label's node. Moving
//! node arrays instead (the labels back, the group numbers and table offsets out, the row counts back and the row
//! offsets out) took 60 of kron22's first contraction's 94 ms on an H200, over 4 M nodes.
//!
//! The steps, one stream:
//! 1. mark the labels in use (a bad label stops here, nothing changed); their exclusive prefix sum numbers the
//!    groups in the labels' order;
//! 2. every node's group, and every group's table size (two slots per edge of its members), scanned into table
//!    offsets; the total is the slots the tables need, allocated here (a device without the memory, or a run
//!    whose limit it would pass, declines: the host contracts, the graph untouched);
//! 3. the quotient's insert kernel (the row counts, per group), their prefix sum as the new row offsets (and the
//!    largest as the largest degree), the compact kernel;
//! 4. the edge sources, where the program reads `G.src`; each input node's new node.
//!
//! The kernels are the runtime's own PTX (`runtime_ptx.rs`), one module loaded when a run first contracts; their
//! scratch is kept between levels (a level's graph is never larger than the last one's, so Louvain's levels
//! allocate once).

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use irgc_runtime::{ContractJob, Contracted, Device, DeviceBuffer, RunError};

use crate::driver::GpuBuffer;
use crate::error::describe;
use crate::groups::group_kernels;
use crate::quotient::{quotient_kernels, Sum};
use crate::runtime_ptx::HEADER;
use crate::scan::{scan_kernels, Scan};

/// The PTX module of every kernel `G.contract` runs (what the driver loads; `ptxas` checks it in the tests).
pub fn contract_ptx() -> String {
    String::from(HEADER) + &group_kernels() + &scan_kernels() + &quotient_kernels()
}

/// The loaded kernels and the scratch of the last contraction.
pub(crate) struct ContractKernels {
    mark: CudaFunction,
    assign: CudaFunction,
    origin: CudaFunction,
    sources: CudaFunction,
    scan: Scan,
    /// Insert and compact, per weight kind in [`Sum::ALL`]'s order.
    quotient: Vec<(CudaFunction, CudaFunction)>,
    nodes: Option<NodeScratch>,
    slots: Option<SlotScratch>,
    _module: Arc<CudaModule>,
}

impl ContractKernels {
    fn load(ctx: &Arc<cudarc::driver::CudaContext>) -> Result<ContractKernels, RunError> {
        let module = ctx.load_module(Ptx::from_src(contract_ptx())).map_err(|e| {
            RunError::Device(format!("the CUDA driver cannot load the runtime's contraction kernels: {}", describe(&e)))
        })?;
        let entry = |name: &str| {
            module.load_function(name).map_err(|e| RunError::Device(format!("no kernel `{name}`: {}", describe(&e))))
        };
        let quotient = Sum::ALL
            .iter()
            .map(|s| {
                Ok((
                    entry(&format!("irgc_quotient_insert_{}", s.suffix()))?,
                    entry(&format!("irgc_quotient_compact_{}", s.suffix()))?,
                ))
            })
            .collect::<Result<_, RunError>>()?;
        Ok(ContractKernels {
            mark: entry("irgc_groups_mark")?,
            assign: entry("irgc_groups_assign")?,
            origin: entry("irgc_groups_origin")?,
            sources: entry("irgc_groups_sources")?,
            scan: Scan { sums: entry("irgc_scan_sums")?, apply: entry("irgc_scan_apply")? },
            quotient,
            nodes: None,
            slots: None,
            _module: module,
        })
    }
}

/// Scratch sized by the current graph's nodes `n`.
struct NodeScratch {
    /// `n + 1` words: the labels in use, then their ranks (the group numbers); then each group's row length, then
    /// its cursor while the compact kernel fills its row.
    words: GpuBuffer,
    /// `n` group numbers (`u32`).
    group: GpuBuffer,
    /// `n + 1` words: each group's table size, then its table's first slot.
    tables: GpuBuffer,
    /// A scan's chunk sums (`n / 256 + 2` words), and the first bad label's node.
    chunks: GpuBuffer,
    bad: GpuBuffer,
    nodes: u64,
}

/// The hash tables' slots: keys (`u32`) and summed weights.
struct SlotScratch {
    keys: GpuBuffer,
    sums: GpuBuffer,
    slots: u64,
    sum_size: usize,
}

/// Bytes of node scratch for `n` nodes.
fn node_bytes(n: u64) -> u64 {
    let words = n.saturating_add(1);
    words.saturating_mul(16).saturating_add(n.saturating_mul(4)).saturating_add((n / 256 + 3).saturating_mul(8))
}

/// Whether `bytes` more stay within `left` (the run's memory limit's rest; `None`: no limit).
fn fits(bytes: u64, left: Option<u64>) -> bool {
    left.is_none_or(|left| bytes <= left)
}

impl crate::CudaDevice {
    /// See [`irgc_runtime::Device::contract`] and the module documentation.
    pub(crate) fn contract_on_gpu(&mut self, job: ContractJob<'_, GpuBuffer>) -> Result<Contracted, RunError> {
        let Some(sum) = Sum::of(job.weights.as_ref().map(|(_, ty)| *ty)) else {
            return Ok(Contracted::Declined);
        };
        if self.contraction.is_none() {
            self.contraction = Some(ContractKernels::load(&self.gpu().ctx)?);
        }
        let mut k =
            self.contraction.take().ok_or_else(|| RunError::Device("internal error: no contraction kernels".into()))?;
        let result = self.contract_with(&mut k, job, sum);
        self.contraction = Some(k);
        match result {
            // Scratch the run's limit or the GPU cannot hold: the host contracts instead (its own error, if any, is
            // the one the user sees). Any other failure is the GPU's, and ends the run.
            Err(RunError::Memory(_)) => Ok(Contracted::Declined),
            other => other,
        }
    }

    fn contract_with(
        &mut self,
        k: &mut ContractKernels,
        job: ContractJob<'_, GpuBuffer>,
        sum: Sum,
    ) -> Result<Contracted, RunError> {
        let started = Instant::now();
        let n = job.num_nodes;
        // Every byte of scratch counts against the run's limit: what is kept from earlier levels, what is new.
        let origin_bytes = job.input_nodes.saturating_mul(4);
        if k.nodes.as_ref().is_none_or(|s| s.nodes < n) {
            k.nodes = None;
            let slots_held = k.slots.as_ref().map_or(0, |t| t.slots.saturating_mul(4 + t.sum_size as u64));
            if !fits(node_bytes(n).saturating_add(origin_bytes).saturating_add(slots_held), job.memory_left) {
                return Ok(Contracted::Declined);
            }
            let words = usize::try_from(n.saturating_add(1).saturating_mul(8)).map_err(|_| too_big())?;
            k.nodes = Some(NodeScratch {
                words: self.alloc("the contraction's group numbers", words)?,
                group: self.alloc("the contraction's groups", words / 2)?,
                tables: self.alloc("the contraction's table offsets", words)?,
                chunks: self.alloc("the contraction's scan sums", ((n / 256 + 2) * 8) as usize)?,
                bad: self.alloc("the contraction's label check", 8)?,
                nodes: n,
            });
        }
        let s = k.nodes.as_mut().ok_or_else(too_big)?;

        // 1. The labels in use, numbered.
        Device::fill(self, &mut s.words, 8, n, 0)?;
        Device::fill(self, &mut s.bad, 8, 1, u64::MAX)?;
        self.launch_runtime(
            &k.mark,
            "irgc_groups_mark",
            &[job.labels.address(), s.words.address(), s.bad.address(), n],
            n,
        )?;
        let bad = Device::read(self, &s.bad, 8, 0, 1)?[0];
        if bad != u64::MAX {
            let label = Device::read_u32(self, job.labels, bad, 1)?[0];
            return Ok(Contracted::BadLabel { node: bad, label: u64::from(label) });
        }
        let words = s.words.address();
        let (groups, _) = self.scan(&k.scan, words, words, n, &mut s.chunks)?;

        // 2. Groups and their tables.
        Device::fill(self, &mut s.tables, 8, groups + 1, 0)?;
        let assign = [job.labels.address(), job.row_start.address(), words, s.group.address(), s.tables.address(), n];
        self.launch_runtime(&k.assign, "irgc_groups_assign", &assign, n)?;
        let tables = s.tables.address();
        let (slots, _) = self.scan(&k.scan, tables, tables, groups, &mut s.chunks)?;
        Device::write(self, &mut s.tables, 8, groups, &[slots])?;
        let numbering_s = started.elapsed().as_secs_f64();
        if k.slots.as_ref().is_none_or(|t| t.slots < slots || t.sum_size < sum.size()) {
            k.slots = None;
            let bytes = slots.saturating_mul(4 + sum.size() as u64);
            let held = node_bytes(s.nodes).saturating_add(origin_bytes);
            if !fits(bytes.saturating_add(held), job.memory_left) {
                return Ok(Contracted::Declined);
            }
            let keys = usize::try_from(slots.saturating_mul(4)).map_err(|_| too_big())?;
            let sums = usize::try_from(slots.saturating_mul(sum.size() as u64)).map_err(|_| too_big())?;
            k.slots = Some(SlotScratch {
                keys: self.alloc("the quotient's hash tables", keys)?,
                sums: self.alloc("the quotient's summed weights", sums)?,
                slots,
                sum_size: sum.size(),
            });
        }
        let t = k.slots.as_mut().ok_or_else(too_big)?;
        Device::fill(self, &mut t.keys, 4, slots, 0)?;
        if sum.size() > 0 {
            Device::fill(self, &mut t.sums, sum.size(), slots, 0)?;
        }
        // The device origin, before anything of the graph changes (its allocation may fail).
        let first = job.origin.is_none();
        if first {
            let bytes = usize::try_from(job.input_nodes.saturating_mul(4)).map_err(|_| too_big())?;
            let mut buf = self.alloc("each input node's node", bytes)?;
            if let Some(host) = job.host_origin {
                Device::write_u32(self, &mut buf, 0, host)?;
            }
            *job.origin = Some(buf);
        }

        // 3. The quotient.
        let index = Sum::ALL.iter().position(|&x| x == sum).unwrap_or(0);
        let (insert, compact) = k.quotient[index].clone();
        let weight = job.weights.as_ref().map_or(0, |(b, _)| b.address());
        Device::fill(self, &mut s.words, 8, groups, 0)?;
        let insert_args = [
            job.row_start.address(),
            job.col.address(),
            weight,
            s.group.address(),
            tables,
            t.keys.address(),
            t.sums.address(),
            words,
            n,
            job.num_edges,
        ];
        self.launch_runtime(&insert, "irgc_quotient_insert", &insert_args, job.num_edges)?;
        let (edges, max_degree) = self.scan(&k.scan, words, job.row_start.address(), groups, &mut s.chunks)?;
        Device::write(self, job.row_start, 8, groups, &[edges])?;
        Device::fill(self, &mut s.words, 8, groups, 0)?;
        let compact_args = [
            t.keys.address(),
            t.sums.address(),
            tables,
            job.row_start.address(),
            words,
            job.col.address(),
            weight,
            groups,
            slots,
        ];
        self.launch_runtime(&compact, "irgc_quotient_compact", &compact_args, slots)?;

        // 4. Edge sources and the input's nodes.
        if let Some(src) = job.sources {
            self.launch_runtime(
                &k.sources,
                "irgc_groups_sources",
                &[job.row_start.address(), src.address(), groups, edges],
                edges,
            )?;
        }
        let origin = job.origin.as_ref().map_or(0, |b| b.address());
        let from_identity = u64::from(first && job.host_origin.is_none());
        self.launch_runtime(
            &k.origin,
            "irgc_groups_origin",
            &[origin, s.group.address(), job.input_nodes, from_identity],
            job.input_nodes,
        )?;
        let group = if job.return_groups { Some(Device::read_u32(self, &s.group, 0, n)?) } else { None };
        self.wait("the contraction kernels failed on the GPU")?;
        Ok(Contracted::Built { groups, edges, max_degree, group, numbering_s })
    }
}

fn too_big() -> RunError {
    RunError::Memory("the contraction's scratch exceeds the address space".into())
}
