//! The device abstraction: what the plan interpreter needs of the machine that holds the program's memory and
//! runs its kernels.
//!
//! The interpreter (`plan.rs`, `launch.rs`) owns everything that is the same on every machine: the host locals,
//! the kernel context (a host copy of the slot table), worklist counts and buffer roles, the push/retry/overflow
//! protocol, launch limits and statistics. A [`Device`] only moves bytes and runs kernels, so the protocol is
//! written once and a new backend cannot get it subtly different. Two implementations exist: the CPU
//! ([`crate::cpu::CpuDevice`], host memory and Cranelift kernels) and CUDA (`irgc-cuda`, device memory and PTX
//! kernels).
//!
//! Buffers hold packed little-endian elements of 1, 4 or 8 bytes (the kernel ABI of `irgc-artifact`), always
//! allocated in whole 8-byte words; every element-level operation says the element size. Values travel as `u64`
//! bits, zero-extended.

use std::time::Duration;

use irgc_artifact::{KernelDesc, PipeDesc};
use irgc_graph::Shared;

use crate::error::RunError;

/// A buffer in a device's memory.
pub trait DeviceBuffer {
    /// The address kernels see (what goes into a pointer slot of the context). It never changes while the buffer
    /// lives, so the context can be built once.
    fn address(&self) -> u64;
}

/// What one kernel launch gave back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launched {
    /// The reduction's bits (the identity when the space was empty); ignored for kernels without a reduction.
    pub bits: u64,
    /// How long the kernel ran, as the device measures it.
    pub seconds: f64,
}

/// The rounds an outlined pipe has run from the host since the plan reached it: what a device's choice to enter
/// its persistent kernel looks at ([`PipeRun::host`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostRounds {
    pub rounds_done: u64,
    /// The worklist's item count when the last of them began (0 before the first): with the count now, how fast
    /// the worklist is shrinking.
    pub previous_count: u64,
    /// How long the last of them took, launches and read-backs included (seconds; 0 before the first): a device
    /// may keep heavy rounds out of a persistent kernel, whose grid is sized for its barriers.
    pub previous_seconds: f64,
}

/// An outlined `pipe` to run as one kernel (see [`irgc_artifact::PipeState`]).
#[derive(Clone, Copy, Debug)]
pub struct PipeRun<'a> {
    /// Its index in [`irgc_artifact::Artifact::pipes`].
    pub pipe: usize,
    pub desc: &'a PipeDesc,
    /// The worklist's current item count (at least 1).
    pub count: u64,
    /// The most rounds it may run (the launch limit's remainder over the most launches a round makes).
    pub max_rounds: u64,
    /// The most launches it may make (the launch limit's remainder; retry passes count).
    pub max_launches: u64,
    /// The addresses of the worklist's two retry buffers (zeros without retries).
    pub retry_buffers: [u64; 2],
    /// The rounds this pipe has already run from the host since the plan reached it (none for an outlined loop,
    /// whatever it ran: only a pipe's entry depends on them).
    pub host: HostRounds,
    /// The most rounds to keep a [`RoundRecord`] of (0: none, statistics are off).
    pub record_rounds: u64,
    /// Every host local's bits.
    pub locals: &'a [u64],
    /// The estimates of each `hybrid` of the pipe, in pre-order ([`irgc_artifact::AutoHybrid`]; used by the
    /// `above auto` ones).
    pub auto: &'a [irgc_artifact::AutoHybrid],
}

/// How an outlined pipe ended.
#[derive(Clone, Debug, PartialEq)]
pub struct PipeEnd {
    pub rounds: u64,
    /// Kernel launches the rounds made.
    pub launches: u64,
    /// One of `PipeState::{DONE, LIMIT, OVERFLOW}`.
    pub status: u64,
    /// Every host local's bits after the last round.
    pub locals: Vec<u64>,
    /// What the kernel recorded of its first [`PipeRun::record_rounds`] rounds, in order.
    pub records: Vec<RoundRecord>,
    /// The estimates of each `hybrid` after the last round (as [`PipeRun::auto`]).
    pub auto: Vec<irgc_artifact::AutoHybrid>,
}

/// One round of an outlined pipe or loop as the kernel recorded it (see `irgc_artifact::PipeState::RECORDS`).
#[derive(Clone, Debug, PartialEq)]
pub struct RoundRecord {
    /// The worklist's count when the round started (0 in a loop).
    pub size: u64,
    /// The round's time by the GPU's clock, ns: from its start to the next round's (or the kernel's end).
    pub ns: u64,
    /// For each `hybrid` statement of the pipe, in order: `None` if the round did not reach it, else whether it
    /// ran `dense`, and its threshold × nodes.
    pub hybrids: Vec<Option<(bool, f64)>>,
    /// The result of the round's first reducing launch, if one ran (`true` is 1).
    pub reduced: Option<f64>,
}

impl RoundRecord {
    /// The records in `words` (`rounds + 1` records of `PipeState::record_words(hybrids)` words, the last only
    /// closing the one before), as the kernel wrote them.
    pub fn decode(words: &[u64], hybrids: usize) -> Vec<RoundRecord> {
        use irgc_artifact::PipeState;
        let size = PipeState::record_words(hybrids);
        let recs: Vec<&[u64]> = words.chunks_exact(size).collect();
        recs.windows(2)
            .map(|pair| {
                let (r, next) = (pair[0], pair[1]);
                let bits = r[PipeState::RECORD_HYBRID];
                let hybrids = (0..hybrids)
                    .map(|k| {
                        let above = f64::from_bits(r[PipeState::RECORD_ABOVE + k]);
                        let ran = k < PipeState::RECORDED_HYBRIDS && bits >> (2 * k) & 1 == 1;
                        ran.then_some((bits >> (2 * k + 1) & 1 == 1, above))
                    })
                    .collect();
                let reduced = bits & PipeState::RECORD_REDUCED_BIT != 0;
                RoundRecord {
                    size: r[PipeState::RECORD_SIZE],
                    ns: next[PipeState::RECORD_TIME].saturating_sub(r[PipeState::RECORD_TIME]),
                    hybrids,
                    reduced: reduced.then(|| f64::from_bits(r[PipeState::RECORD_REDUCED])),
                }
            })
            .collect()
    }
}

/// `G.contract` for a device to do in its own memory ([`Device::contract`]): number the groups of `labels` (a node
/// array of `u32` nodes of the current graph) in the labels' order, build the quotient in the graph's own buffers,
/// and keep each input node's node (`origin`) up to date, with nothing but a few counts crossing to the host.
pub struct ContractJob<'a, B> {
    pub labels: &'a B,
    pub row_start: &'a mut B,
    pub col: &'a mut B,
    /// The weights and the type they are stored in.
    pub weights: Option<(&'a mut B, irgc_artifact::Scalar)>,
    /// The edge-source array, rewritten for the quotient (a program that reads `G.src`).
    pub sources: Option<&'a mut B>,
    pub num_nodes: u64,
    pub num_edges: u64,
    /// Each input node's node in the current graph, kept on the device: `None` before the device's first
    /// contraction, which starts it from `host_origin` (the host's, where it had one: a degree-ordered numbering,
    /// an earlier contraction on the host) or else from the identity over `input_nodes`.
    pub origin: &'a mut Option<B>,
    pub host_origin: Option<&'a [u32]>,
    pub input_nodes: u64,
    /// The most bytes the device may allocate for its scratch (what the run's memory limit leaves; `None`: no
    /// limit). A device that would need more declines, and the host contracts.
    pub memory_left: Option<u64>,
    /// Also return each current node's group number (what `IRGC_CHECK_QUOTIENTS` compares).
    pub return_groups: bool,
}

/// What [`Device::contract`] did.
pub enum Contracted {
    /// The quotient is in the graph's buffers: its nodes, edges and largest degree; each old node's group where
    /// asked for; the seconds the group numbering took.
    Built { groups: u64, edges: u64, max_degree: u64, group: Option<Vec<u32>>, numbering_s: f64 },
    /// Not done (this device does not contract, or cannot now: too little memory, a weight type it does not sum);
    /// nothing changed, and the host contracts.
    Declined,
    /// Node `node`'s label `label` is no node of the graph; nothing changed.
    BadLabel { node: u64, label: u64 },
}

/// A machine that holds a program's memory and runs its kernels. See the module documentation for the split of
/// work between the interpreter and the device.
pub trait Device {
    type Buffer: DeviceBuffer;

    /// How messages call this device's memory ("memory", "GPU memory").
    fn memory_name(&self) -> &'static str {
        "memory"
    }

    /// How many threads run a kernel's iterations at once here (a program reads it as `device_threads()`): the
    /// worker threads of a CPU, the threads of a full launch's grid on a GPU. Programs use it to choose between
    /// strategies whose costs differ by about that factor, as `bfs_do` does for a hub's edges.
    fn parallel_threads(&self) -> u64;

    /// Whether a `degree_ordered` program's graph is numbered by degree on this device (where GAP's rule says it
    /// pays). The CPU does: its triangle count ran 1.4–1.6× faster on Kronecker graphs (the hubs' rows together in
    /// cache). A GPU keeps the input's numbering: there the count by degree rank on it was faster (kron22 on an
    /// H100: 310 ms against 575–857 renumbered, `docs/gap.md`).
    fn renumbers_by_degree(&self) -> bool {
        true
    }

    /// Bytes the run may allocate in all; `None` for no limit beyond the per-array cap.
    fn memory_limit(&self) -> Option<u64>;

    /// A zeroed buffer for `len` elements of `elem_size` bytes; `what` names it in errors.
    fn alloc_zeroed(&mut self, what: &str, len: u64, elem_size: usize) -> Result<Self::Buffer, RunError>;

    /// A buffer holding `elems` (each value's low `elem_size` bytes); `what` names it in errors.
    fn alloc_from(&mut self, what: &str, elems: &[u64], elem_size: usize) -> Result<Self::Buffer, RunError>;

    /// A buffer holding 32-bit `elems` (edge targets, sources): [`alloc_from`](Device::alloc_from) without the
    /// caller widening a copy of the graph's largest arrays first. Devices override it to skip the copy too.
    fn alloc_from_u32(&mut self, what: &str, elems: &[u32]) -> Result<Self::Buffer, RunError> {
        self.alloc_from(what, &elems.iter().map(|&x| x as u64).collect::<Vec<_>>(), 4)
    }

    /// A buffer holding the graph's 32-bit array `elems` (its edges, its edge sources) for the run. Kernels only
    /// read it. By default it is a copy ([`alloc_from_u32`](Device::alloc_from_u32)); a device whose kernels can
    /// read host memory shares the array instead (see [`shares_graph`](Device::shares_graph)).
    fn graph_u32(&mut self, what: &str, elems: &Shared<u32>) -> Result<Self::Buffer, RunError> {
        self.alloc_from_u32(what, elems)
    }

    /// [`graph_u32`](Device::graph_u32) for the graph's 64-bit row offsets.
    fn graph_u64(&mut self, what: &str, elems: &Shared<u64>) -> Result<Self::Buffer, RunError> {
        self.alloc_from(what, elems, 8)
    }

    /// Whether [`graph_u32`](Device::graph_u32) and [`graph_u64`](Device::graph_u64) share the host's arrays
    /// rather than copy them: then they take none of the device's memory.
    fn shares_graph(&self) -> bool {
        false
    }

    /// Whether this device's kernels need the edge-source array, for a program that reads `G.src`.
    fn reads_sources(&self) -> bool {
        true
    }

    /// Elements `start..start + len`, zero-extended. Called between launches only.
    fn read(&self, buf: &Self::Buffer, elem_size: usize, start: u64, len: u64) -> Result<Vec<u64>, RunError>;

    /// [`read`](Device::read) of 32-bit elements as they are (a contraction's labels), without widening them.
    /// Devices override it to skip the widened copy too.
    fn read_u32(&self, buf: &Self::Buffer, start: u64, len: u64) -> Result<Vec<u32>, RunError> {
        Ok(self.read(buf, 4, start, len)?.into_iter().map(|x| x as u32).collect())
    }

    /// Stores `elems` at elements `start..` (each value's low `elem_size` bytes). Called between launches only.
    fn write(&mut self, buf: &mut Self::Buffer, elem_size: usize, start: u64, elems: &[u64]) -> Result<(), RunError>;

    /// [`write`](Device::write) of 32-bit `elems` (a contracted graph's edges) without the caller widening a copy
    /// first. Devices override it to skip the copy too.
    fn write_u32(&mut self, buf: &mut Self::Buffer, start: u64, elems: &[u32]) -> Result<(), RunError> {
        self.write(buf, 4, start, &elems.iter().map(|&x| u64::from(x)).collect::<Vec<_>>())
    }

    /// Whether [`contract`](Device::contract) contracts graphs on this device (it may still decline one), so a
    /// contracting plan need not keep the graph's edges on the host.
    fn contracts_on_device(&self) -> bool {
        false
    }

    /// Does `job` (see [`ContractJob`]): the quotient's rows may be in any order, and parallel edges' weights
    /// summed in any order. The default declines: the host contracts (`crate::contract`).
    fn contract(&mut self, _job: ContractJob<'_, Self::Buffer>) -> Result<Contracted, RunError> {
        Ok(Contracted::Declined)
    }

    /// Sets elements `0..len` to `bits`.
    fn fill(&mut self, buf: &mut Self::Buffer, elem_size: usize, len: u64, bits: u64) -> Result<(), RunError>;

    /// Copies elements `0..len` of `src`, a buffer of `sender` (another device of this kind, finished with its
    /// work), into `dst`: how a multi-device merge moves an array (`crate::devices`). The default goes through
    /// the host; a GPU copies device to device. Called between launches only.
    fn receive(
        &mut self,
        dst: &mut Self::Buffer,
        sender: &Self,
        src: &Self::Buffer,
        elem_size: usize,
        len: u64,
    ) -> Result<(), RunError> {
        let values = sender.read(src, elem_size, 0, len)?;
        self.write(dst, elem_size, 0, &values)
    }

    /// The size of a `Range` or `Tiles` space of kernel `k` if the device's kernels compute it themselves from the
    /// context (the CPU backend's size functions); `None` makes the interpreter evaluate the kernel's
    /// [`bounds`](KernelDesc::bounds) on the host.
    fn space_size(&self, _k: usize, _ctx: &[u64]) -> Option<u64> {
        None
    }

    /// Runs iterations `0..size` of kernel `k` (described by `desc`) with the context `ctx` (the interpreter's
    /// current slot table; the device makes its kernels see exactly these values). A device that keeps its work
    /// in order may return before the kernel finishes, unless the kernel has a reduction (its result is returned)
    /// or launches are being timed: every later [`read`](Device::read) still sees the kernel's effects.
    fn launch(&mut self, k: usize, desc: &KernelDesc, ctx: &[u64], size: u64) -> Result<Launched, RunError>;

    /// Whether its kernels report bad indices to the bounds report (`irgc_artifact::BoundsReport`), which the
    /// interpreter then reads after every launch.
    fn checks_bounds(&self) -> bool {
        false
    }

    /// Runs an outlined pipe to its end as one kernel, with the context `ctx`, or returns `None` when this device
    /// cannot (the CPU; a GPU program compiled without the pipe's entry) or will not yet (a round larger than the
    /// persistent grid runs faster as an ordinary launch): the interpreter then runs a round from the host and asks
    /// again. The worklist's counters other than the overflow flag are left as they were.
    fn run_pipe(&mut self, _run: PipeRun<'_>, _ctx: &[u64]) -> Result<Option<PipeEnd>, RunError> {
        Ok(None)
    }

    /// Waits for the work queued so far (a GPU's launches return before they run): what a `hybrid ... above
    /// auto` needs to time its branch. The CPU's launches finish before they return.
    fn finish(&mut self) -> Result<(), RunError> {
        Ok(())
    }

    /// Marks the start of the plan, for [`Device::end_compute`]. With `time_launches`, every launch reports how
    /// long it took ([`Launched::seconds`]; `--stats`), which may cost a wait per launch; without, 0 will do.
    fn begin_compute(&mut self, _time_launches: bool) -> Result<(), RunError> {
        Ok(())
    }

    /// Marks the end of the plan (waiting for the device to finish) and returns how long the device measured it
    /// took, or `None` to let the interpreter use the host's wall clock.
    fn end_compute(&mut self) -> Result<Option<Duration>, RunError> {
        Ok(None)
    }

    /// The kernels whose unrolled and rolled entries this device timed during the run, and which it kept (a GPU
    /// choosing between a kernel's two forms; see [`crate::UnrollChoice`]).
    fn unroll_choices(&self) -> Vec<crate::UnrollChoice> {
        Vec::new()
    }
}

/// Inside an `impl Device for W`, where `W` wraps another device in field `$inner`: the memory methods of the
/// trait (`memory_limit`, `alloc_zeroed`, `alloc_from` and its 32-bit form, the graph's arrays, `read`, `write`,
/// `fill`) and `parallel_threads`, forwarded to it, so a wrapper (an instrumented or scripted device: the tests have several) writes only the methods it
/// changes. `W::Buffer` must be the inner device's buffer type.
#[macro_export]
macro_rules! forward_device_basics {
    ($inner:ident) => {
        fn memory_limit(&self) -> Option<u64> {
            self.$inner.memory_limit()
        }

        fn parallel_threads(&self) -> u64 {
            self.$inner.parallel_threads()
        }

        fn alloc_zeroed(&mut self, what: &str, len: u64, size: usize) -> Result<Self::Buffer, $crate::RunError> {
            self.$inner.alloc_zeroed(what, len, size)
        }

        fn alloc_from(&mut self, what: &str, elems: &[u64], size: usize) -> Result<Self::Buffer, $crate::RunError> {
            self.$inner.alloc_from(what, elems, size)
        }

        fn alloc_from_u32(&mut self, what: &str, elems: &[u32]) -> Result<Self::Buffer, $crate::RunError> {
            self.$inner.alloc_from_u32(what, elems)
        }

        fn graph_u32(&mut self, what: &str, elems: &irgc_graph::Shared<u32>) -> Result<Self::Buffer, $crate::RunError> {
            self.$inner.graph_u32(what, elems)
        }

        fn graph_u64(&mut self, what: &str, elems: &irgc_graph::Shared<u64>) -> Result<Self::Buffer, $crate::RunError> {
            self.$inner.graph_u64(what, elems)
        }

        fn shares_graph(&self) -> bool {
            self.$inner.shares_graph()
        }

        fn reads_sources(&self) -> bool {
            self.$inner.reads_sources()
        }

        fn read(&self, buf: &Self::Buffer, size: usize, start: u64, len: u64) -> Result<Vec<u64>, $crate::RunError> {
            self.$inner.read(buf, size, start, len)
        }

        fn write(
            &mut self,
            buf: &mut Self::Buffer,
            size: usize,
            start: u64,
            elems: &[u64],
        ) -> Result<(), $crate::RunError> {
            self.$inner.write(buf, size, start, elems)
        }

        fn write_u32(&mut self, buf: &mut Self::Buffer, start: u64, elems: &[u32]) -> Result<(), $crate::RunError> {
            self.$inner.write_u32(buf, start, elems)
        }

        fn fill(&mut self, buf: &mut Self::Buffer, size: usize, len: u64, bits: u64) -> Result<(), $crate::RunError> {
            self.$inner.fill(buf, size, len, bits)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::RoundRecord;
    use irgc_artifact::PipeState;

    #[test]
    fn round_records_decode_as_the_kernel_writes_them() {
        // Two hybrids; round 0 ran the first one dense (above 10.5), round 1 ran the second sparse (above 2.0), and
        // the third record closes round 1.
        let w = PipeState::record_words(2);
        let mut words = vec![0u64; 3 * w];
        words[PipeState::RECORD_SIZE] = 40;
        words[PipeState::RECORD_TIME] = 1_000;
        words[PipeState::RECORD_HYBRID] = 0b11;
        words[PipeState::RECORD_ABOVE] = 10.5f64.to_bits();
        words[w + PipeState::RECORD_SIZE] = 7;
        words[w + PipeState::RECORD_TIME] = 4_000;
        words[w + PipeState::RECORD_HYBRID] = 0b0100;
        words[w + PipeState::RECORD_ABOVE + 1] = 2.0f64.to_bits();
        words[2 * w + PipeState::RECORD_TIME] = 4_500;
        let r = RoundRecord::decode(&words, 2);
        assert_eq!(
            r,
            [
                RoundRecord { size: 40, ns: 3_000, hybrids: vec![Some((true, 10.5)), None], reduced: None },
                RoundRecord { size: 7, ns: 500, hybrids: vec![None, Some((false, 2.0))], reduced: None },
            ]
        );
        assert!(RoundRecord::decode(&words[..w], 2).is_empty(), "a lone record closes nothing");
    }

    #[test]
    fn a_loops_records_carry_the_reduced_value_only_where_a_reducing_launch_ran() {
        // A loop (no worklist, no hybrid): round 0 reduced to 0.25, round 1 reduced nothing, round 2 reduced -0.0
        // (a value that is all zero bits but the sign, so the flag and not the bits say it is there).
        let w = PipeState::record_words(0);
        let mut words = vec![0u64; 4 * w];
        for (i, t) in [100u64, 350, 400, 1_000].into_iter().enumerate() {
            words[i * w + PipeState::RECORD_TIME] = t;
        }
        words[PipeState::RECORD_HYBRID] = PipeState::RECORD_REDUCED_BIT;
        words[PipeState::RECORD_REDUCED] = 0.25f64.to_bits();
        words[w + PipeState::RECORD_REDUCED] = 9.0f64.to_bits();
        words[2 * w + PipeState::RECORD_HYBRID] = PipeState::RECORD_REDUCED_BIT;
        words[2 * w + PipeState::RECORD_REDUCED] = (-0.0f64).to_bits();
        let r = RoundRecord::decode(&words, 0);
        let got: Vec<(u64, Option<u64>)> = r.iter().map(|r| (r.ns, r.reduced.map(f64::to_bits))).collect();
        assert_eq!(got, [(250, Some(0.25f64.to_bits())), (50, None), (600, Some((-0.0f64).to_bits()))]);
        assert!(r.iter().all(|r| r.size == 0 && r.hybrids.is_empty()));
    }
}
