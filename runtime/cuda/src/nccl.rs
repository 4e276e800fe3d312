//! NCCL through cudarc's bindings (the library loaded at run time, like the driver): how the GPUs of a
//! multi-device run move the merge's arrays.
//!
//! - [`NcclLink`]: one process per GPU (`irgc_runtime::ranks`). Rank 0 writes a fresh NCCL unique id into the join
//!   file, the other ranks read it, and all join one communicator; arrays then move with `ncclSend`/`ncclRecv`.
//!   Nothing here assumes one host: across hosts the join file must be one every rank can read (a shared file
//!   system), and NCCL finds its own way (NVLink, PCIe, InfiniBand, RoCE, TCP).
//! - [`NcclDevices`]: one process driving several GPUs (`irgc_runtime::devices`), one communicator per GPU
//!   (`ncclCommInitAll`), each move a grouped send and receive.
//!
//! The library: cudarc tries `libnccl.so` and a few versioned names, but pip's `nvidia-nccl-cu12`/`-cu13` wheels
//! (what PyTorch installs) and Debian's `libnccl2` ship only `libnccl.so.2`. [`find_nccl_library`] finds such a
//! file; the CLI then starts itself again with a folder that links it as `libnccl.so` on `LD_LIBRARY_PATH` (the
//! loader reads that variable only when a process starts).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaSlice, CudaStream};
use cudarc::nccl::result::NcclError;
use cudarc::nccl::{group_end, group_start, Comm, Id};
use irgc_runtime::devices::{merge_rounds, Mover};
use irgc_runtime::ranks::{Link, Rank, Step};
use irgc_runtime::RunError;

use crate::device::CudaDevice;
use crate::driver::GpuBuffer;
use crate::error::CudaError;

/// The first line of a join file, before the unique id in hex.
const JOIN_HEADER: &str = "irgc NCCL unique id";

/// Whether cudarc can load NCCL under one of the names it tries.
pub fn nccl_loadable() -> bool {
    crate::driver::nccl_present()
}

/// The loaded NCCL's version, e.g. "2.27.3"; `None` if it cannot be loaded.
pub fn nccl_version() -> Option<String> {
    if !nccl_loadable() {
        return None;
    }
    let code = std::panic::catch_unwind(cudarc::nccl::result::get_nccl_version).ok()?.ok()?;
    // NCCL_VERSION(X, Y, Z) is X·10000 + Y·100 + Z since 2.9 (X·1000 + Y·100 + Z before).
    Some(if code >= 20900 {
        format!("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100)
    })
}

/// An NCCL library file on this machine (see the module documentation): `IRGC_NCCL_LIBRARY` if set, else the
/// first `libnccl.so.2` (or `libnccl.so`) in the folders of `LD_LIBRARY_PATH`, the system's library folders, and
/// the `nvidia/nccl/lib` folders of Python's site packages (system, user, virtual and conda environments), else
/// the one of the `nvidia.nccl` package `python3` imports.
pub fn find_nccl_library() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("IRGC_NCCL_LIBRARY") {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let mut folders: Vec<PathBuf> =
        std::env::var_os("LD_LIBRARY_PATH").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    folders.extend(
        ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/local/lib", "/usr/lib64", "/usr/lib"]
            .map(PathBuf::from),
    );
    let mut roots: Vec<PathBuf> = ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"].map(PathBuf::from).to_vec();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(v) = std::env::var_os(var) {
            roots.push(PathBuf::from(v).join("lib"));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join(".local/lib"));
    }
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else { continue };
        let mut pythons: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pythons.sort();
        for python in pythons {
            for packages in ["dist-packages", "site-packages"] {
                folders.push(python.join(packages).join("nvidia/nccl/lib"));
            }
        }
    }
    let found = folders.iter().flat_map(|f| [f.join("libnccl.so.2"), f.join("libnccl.so")]).find(|p| p.is_file());
    found.or_else(python_nccl)
}

/// The `libnccl.so.2` of the `nvidia.nccl` package that `python3` imports, wherever its environment lives.
fn python_nccl() -> Option<PathBuf> {
    let script = "import nvidia.nccl as m; print(list(m.__path__)[0])";
    let out = std::process::Command::new("python3").args(["-c", script]).stderr(std::process::Stdio::null()).output();
    let out = out.ok().filter(|o| o.status.success())?;
    let folder = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()).join("lib");
    Some(folder.join("libnccl.so.2")).filter(|p| p.is_file())
}

fn nccl_error(what: &str, e: NcclError) -> RunError {
    RunError::ranks(format!("{what}: NCCL says {:?} (NCCL_DEBUG=WARN prints NCCL's own account)", e.0))
}

/// Loads NCCL or says why it cannot.
fn require_nccl() -> Result<String, RunError> {
    nccl_version().ok_or_else(|| {
        RunError::ranks(
            "NCCL cannot be loaded (no libnccl.so on the library path; `pip install nvidia-nccl-cu12` or Debian's \
             libnccl2 provide it, and IRGC_NCCL_LIBRARY names a file directly)",
        )
    })
}

/// A rank's NCCL communicator (see the module documentation).
pub struct NcclLink {
    comm: Comm,
    stream: Arc<CudaStream>,
    /// The word the barrier's messages carry.
    token: CudaSlice<u8>,
    version: String,
}

impl NcclLink {
    /// Joins the ranks that meet at `join`, as `rank` on `dev`'s GPU: rank 0 writes a fresh unique id there (the
    /// file must not exist yet: a stale one would send the others to a communicator that never forms); the others
    /// wait up to `wait` for it. Returns once every rank has joined.
    pub fn join(dev: &CudaDevice, join: &Path, rank: Rank, wait: Duration) -> Result<NcclLink, RunError> {
        let version = require_nccl()?;
        let id = if rank.rank == 0 {
            let id = Id::new().map_err(|e| nccl_error("cannot make an NCCL unique id", e))?;
            write_id(join, &id)?;
            id
        } else {
            read_id(join, wait)?
        };
        let stream = dev.gpu().stream.clone();
        // NCCL takes the communicator's GPU from the thread's current context.
        stream.context().bind_to_thread().map_err(|e| RunError::from(CudaError::driver("cannot select the GPU", e)))?;
        let comm = Comm::from_rank(stream.clone(), rank.rank, rank.ranks, id).map_err(|e| {
            nccl_error(&format!("rank {} of {} cannot join the NCCL communicator", rank.rank, rank.ranks), e)
        })?;
        let token = stream
            .alloc_zeros::<u8>(8)
            .map_err(|e| RunError::from(CudaError::driver("cannot allocate the barrier's word", e)))?;
        let mut link = NcclLink { comm, stream, token, version };
        link.connect(rank)?;
        Ok(link)
    }

    /// Sends a word along each of this rank's merge steps, so that NCCL connects those pairs now, in the set-up,
    /// rather than inside the first merge (a first `ncclSend` to a peer sets up its connection: 11–25 ms on two
    /// H100s, measured with communicators that had not exchanged anything yet).
    fn connect(&mut self, rank: Rank) -> Result<(), RunError> {
        let failed = |e| nccl_error("cannot connect the ranks that merge", e);
        for step in rank.steps() {
            match step {
                Step::Receive { from } => self.comm.recv(&mut self.token, from as i32).map(drop).map_err(failed)?,
                Step::Send { to } => self.comm.send(&self.token, to as i32).map_err(failed)?,
            }
        }
        self.sync("cannot connect the ranks that merge")
    }

    fn sync(&self, what: &str) -> Result<(), RunError> {
        sync(&self.stream, what)
    }
}

/// Waits for everything queued on `stream` (NCCL's operations included); a failure is `what`.
fn sync(stream: &CudaStream, what: &str) -> Result<(), RunError> {
    stream.synchronize().map_err(|e| RunError::from(CudaError::driver(what, e)))
}

impl Link<CudaDevice> for NcclLink {
    fn barrier(&mut self, _dev: &mut CudaDevice) -> Result<(), RunError> {
        let (me, ranks) = (self.comm.rank(), self.comm.world_size());
        let failed = |e| nccl_error("the ranks' barrier failed", e);
        if me == 0 {
            group_start().map_err(failed)?;
            for r in 1..ranks {
                self.comm.recv(&mut self.token, r as i32).map_err(failed)?;
            }
            group_end().map_err(failed)?;
            group_start().map_err(failed)?;
            for r in 1..ranks {
                self.comm.send(&self.token, r as i32).map_err(failed)?;
            }
            group_end().map_err(failed)?;
        } else {
            self.comm.send(&self.token, 0).map_err(failed)?;
            self.comm.recv(&mut self.token, 0).map_err(failed)?;
        }
        self.sync("the ranks' barrier failed")
    }

    fn send(
        &mut self,
        _dev: &mut CudaDevice,
        buf: &GpuBuffer,
        elem_size: usize,
        len: u64,
        to: usize,
    ) -> Result<(), RunError> {
        let bytes = byte_len(buf, elem_size, len)?;
        self.comm
            .send(&buf.slice().slice(0..bytes), to as i32)
            .map_err(|e| nccl_error(&format!("cannot send to rank {to}"), e))?;
        // The process may end once this returns: the data must have left.
        self.sync(&format!("cannot send to rank {to}"))
    }

    fn recv(
        &mut self,
        _dev: &mut CudaDevice,
        buf: &mut GpuBuffer,
        elem_size: usize,
        len: u64,
        from: usize,
    ) -> Result<(), RunError> {
        let bytes = byte_len(buf, elem_size, len)?;
        self.comm
            .recv(&mut buf.slice_mut().slice_mut(0..bytes), from as i32)
            .map_err(|e| nccl_error(&format!("cannot receive from rank {from}"), e))?;
        self.sync(&format!("cannot receive from rank {from}"))
    }

    fn describe(&self) -> String {
        format!("NCCL {}", self.version)
    }
}

/// One process's NCCL communicators over its GPUs, one per device (see the module documentation).
pub struct NcclDevices {
    comms: Vec<Comm>,
    version: String,
}

impl NcclDevices {
    /// One communicator per device of `devices` (`ncclCommInitAll`; NCCL refuses a GPU named twice), and every
    /// pair that a merge round joins (device `i` and `i + 2^r`) connected by a word sent between them, so that
    /// the first merge does not pay for NCCL's connection set-up (see [`NcclLink`]).
    pub fn new(devices: &[CudaDevice]) -> Result<NcclDevices, RunError> {
        let version = require_nccl()?;
        let streams: Vec<Arc<CudaStream>> = devices.iter().map(|d| d.gpu().stream.clone()).collect();
        let comms =
            Comm::from_devices(streams.clone()).map_err(|e| nccl_error("cannot set up NCCL over the GPUs", e))?;
        let mut tokens = streams
            .iter()
            .map(|s| s.alloc_zeros::<u8>(8))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| RunError::from(CudaError::driver("cannot allocate NCCL's connecting words", e)))?;
        let failed = |e| nccl_error("cannot connect the GPUs that merge", e);
        for &(i, j) in merge_rounds(comms.len()).iter().flatten() {
            let (left, right) = tokens.split_at_mut(j);
            group_start().map_err(failed)?;
            comms[j].send(&right[0], i as i32).map_err(failed)?;
            comms[i].recv(&mut left[i], j as i32).map_err(failed)?;
            group_end().map_err(failed)?;
        }
        for s in &streams {
            sync(s, "cannot connect the GPUs that merge")?;
        }
        Ok(NcclDevices { comms, version })
    }
}

impl Mover<CudaDevice> for NcclDevices {
    fn bring(
        &mut self,
        (receiver, to): (usize, &mut CudaDevice),
        into: &mut GpuBuffer,
        (sender, _): (usize, &CudaDevice),
        from: &GpuBuffer,
        elem_size: usize,
        len: u64,
    ) -> Result<(), RunError> {
        let bytes = byte_len(from, elem_size, len)?;
        byte_len(into, elem_size, len)?;
        let failed = |e| nccl_error(&format!("cannot move an array from device {sender} to device {receiver}"), e);
        let (send, recv) = (&self.comms[sender], &self.comms[receiver]);
        group_start().map_err(failed)?;
        send.send(&from.slice().slice(0..bytes), receiver as i32).map_err(failed)?;
        recv.recv(&mut into.slice_mut().slice_mut(0..bytes), sender as i32).map_err(failed)?;
        group_end().map_err(failed)?;
        sync(&to.gpu().stream, "cannot move an array between GPUs")?;
        sync(&send.stream(), "cannot move an array between GPUs")
    }

    fn describe(&self) -> String {
        format!("NCCL {}", self.version)
    }
}

/// The bytes of `len` elements of `elem_size`, checked against `buf`'s size.
fn byte_len(buf: &GpuBuffer, elem_size: usize, len: u64) -> Result<usize, RunError> {
    (len as usize).checked_mul(elem_size).filter(|&b| b <= buf.bytes()).ok_or_else(|| {
        RunError::ranks(format!("{len} elements of {elem_size} bytes do not fit a buffer of {} bytes", buf.bytes()))
    })
}

/// Writes `id` to `join` for the other ranks (whole or not at all: through a temporary file renamed into place).
fn write_id(join: &Path, id: &Id) -> Result<(), RunError> {
    if join.exists() {
        return Err(RunError::ranks(format!(
            "--join {} already exists (left by an earlier run?): rank 0 writes a fresh NCCL id there, so remove it or \
             name a new path",
            join.display()
        )));
    }
    let hex: String = id.internal().iter().map(|&b| format!("{:02x}", b as u8)).collect();
    let mut tmp = join.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, format!("{JOIN_HEADER}\n{hex}\n"))
        .and_then(|()| std::fs::rename(&tmp, join))
        .map_err(|e| RunError::ranks(format!("cannot write the NCCL id to --join {}: {e}", join.display())))
}

/// Waits up to `wait` for rank 0's id in `join`.
fn read_id(join: &Path, wait: Duration) -> Result<Id, RunError> {
    let deadline = Instant::now() + wait;
    let text = loop {
        match std::fs::read_to_string(join) {
            Ok(text) => break text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RunError::ranks(format!(
                    "rank 0 wrote no NCCL id to --join {} within {} s (is it running, with the same --join?)",
                    join.display(),
                    wait.as_secs()
                )))
            }
            Err(e) => return Err(RunError::ranks(format!("cannot read --join {}: {e}", join.display()))),
        }
    };
    parse_id(&text).ok_or_else(|| {
        RunError::ranks(format!("--join {} does not hold an NCCL id written by irgc's rank 0", join.display()))
    })
}

fn parse_id(text: &str) -> Option<Id> {
    let mut lines = text.lines();
    if lines.next()? != JOIN_HEADER {
        return None;
    }
    let hex = lines.next()?.trim();
    if hex.len() != 256 || !hex.is_ascii() {
        return None;
    }
    let mut internal = [0 as std::ffi::c_char; 128];
    for (i, slot) in internal.iter_mut().enumerate() {
        *slot = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()? as std::ffi::c_char;
    }
    Some(Id::uninit(internal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_id_reads_back_the_same() {
        let dir = std::env::temp_dir().join(format!("irgc-nccl-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let join = dir.join("join");
        let _ = std::fs::remove_file(&join);
        let mut internal = [0 as std::ffi::c_char; 128];
        for (i, c) in internal.iter_mut().enumerate() {
            *c = (i as u8).wrapping_mul(37) as std::ffi::c_char;
        }
        write_id(&join, &Id::uninit(internal)).unwrap();
        let back = read_id(&join, Duration::from_millis(10)).unwrap();
        assert_eq!(back.internal(), &internal);
        // A second rank 0 refuses the existing file; a file of something else is refused by name.
        assert!(write_id(&join, &Id::uninit(internal)).unwrap_err().to_string().contains("already exists"));
        std::fs::write(&join, "not an id\n").unwrap();
        assert!(read_id(&join, Duration::from_millis(10)).unwrap_err().to_string().contains("does not hold"));
        let missing = dir.join("missing");
        assert!(read_id(&missing, Duration::from_millis(10)).unwrap_err().to_string().contains("wrote no NCCL id"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
