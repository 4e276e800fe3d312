//! A binary CSR cache, so a large text graph is parsed once and then loaded at disk speed.
//!
//! File layout, all little-endian:
//!
//! ```text
//! 0   magic "IRGCCSR\0"
//! 8   u32 version (CACHE_VERSION)
//! 12  u8 weights kind (0 none, 1 i64, 2 f64, 3 u32), u8 labels kind (0 offset, 1 explicit), 2 zero bytes
//! 16  u64 nodes n        24  u64 edges m        32  u64 label offset (0 when explicit)
//! 40  u64 row_start[n + 1]
//!     u32 col[m], then 4 zero bytes if m is odd (keeps every section a multiple of 8 bytes)
//!     i64 or f64 weights[m]            (if any; u32 ones packed two to a word, as col)
//!     u64 labels[n]                    (if explicit)
//!     u64 checksum of everything before it
//! ```
//!
//! The header fixes the file's exact length, which is checked against the file size before anything is allocated,
//! so a truncated or lying file is rejected cheaply; the checksum catches flipped bytes; and the decoded graph must
//! pass [`Csr::check_invariants`]. [`load_graph_cached`] treats any of these failures as a cache miss and rebuilds.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use rayon::prelude::*;

use crate::csr::{Csr, NodeLabels, Weights};
use crate::error::{display_name, LoadError, WriteError};
use crate::load::{input_files, load_graph, splitmix64, LoadOptions, WeightSpec};
use crate::renumber::Renumbered;

/// Bumped whenever the layout, or the meaning of anything a cache holds (e.g. a loader fix), changes.
pub const CACHE_VERSION: u32 = 4;
const MAGIC: [u8; 8] = *b"IRGCCSR\0";
const HEADER_LEN: u64 = 40;

/// What [`load_graph_cached`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// A valid cache was found and used.
    Hit,
    /// There was no cache; the input was parsed and a cache written.
    Built,
    /// A cache existed but was invalid (truncated, corrupt, old version); the input was parsed and the cache
    /// replaced.
    Rebuilt,
}

/// A checksum over 8-byte words (every section of the file is a multiple of 8 bytes long).
struct Checksum(u64);

impl Checksum {
    fn new() -> Self {
        Checksum(0x243F_6A88_85A3_08D3)
    }

    fn update(&mut self, bytes: &[u8]) {
        debug_assert!(bytes.len() & 7 == 0);
        for c in bytes.chunks_exact(8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn finish(&self) -> u64 {
        splitmix64(self.0)
    }
}

/// Writes `g` as a cache file at `path`, atomically (a temporary file renamed into place), so a crash or a
/// concurrent reader never sees half a cache.
pub fn save_cache(g: &Csr, path: &Path) -> Result<(), WriteError> {
    write_atomically(path, |tmp| write_cache(g, tmp))
        .map_err(|source| WriteError::Io { path: path.to_path_buf(), source })
}

/// Has `write` write a temporary file beside `path` and renames it into place; on failure the temporary file is
/// removed and `path` left as it was.
fn write_atomically(path: &Path, write: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `u32`s two to a little-endian word (the first in the low half); an odd last one is padded with zeros.
fn packed(v: &[u32]) -> impl Iterator<Item = [u8; 8]> + '_ {
    v.chunks(2).map(|c| (c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32).to_le_bytes())
}

fn write_cache(g: &Csr, path: &Path) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut sum = Checksum::new();
    let mut put = |out: &mut BufWriter<File>, bytes: &[u8]| -> io::Result<()> {
        sum.update(bytes);
        out.write_all(bytes)
    };
    let (wkind, lkind, offset) = (
        match &g.weights {
            None => 0u8,
            Some(Weights::Int(_)) => 1,
            Some(Weights::Float(_)) => 2,
            Some(Weights::U32(_)) => 3,
        },
        match &g.labels {
            NodeLabels::Offset(_) => 0u8,
            NodeLabels::Explicit(_) => 1,
        },
        match &g.labels {
            NodeLabels::Offset(o) => *o,
            NodeLabels::Explicit(_) => 0,
        },
    );
    let mut header = Vec::with_capacity(HEADER_LEN as usize);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&CACHE_VERSION.to_le_bytes());
    header.extend_from_slice(&[wkind, lkind, 0, 0]);
    header.extend_from_slice(&(g.num_nodes() as u64).to_le_bytes());
    header.extend_from_slice(&g.num_edges().to_le_bytes());
    header.extend_from_slice(&offset.to_le_bytes());
    put(&mut out, &header)?;

    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut section = |out: &mut BufWriter<File>, items: &mut dyn Iterator<Item = [u8; 8]>| -> io::Result<()> {
        for item in items {
            buf.extend_from_slice(&item);
            if buf.len() >= 1 << 16 {
                put(out, &buf)?;
                buf.clear();
            }
        }
        put(out, &buf)?;
        buf.clear();
        Ok(())
    };
    section(&mut out, &mut g.row_start.iter().map(|x| x.to_le_bytes()))?;
    section(&mut out, &mut packed(&g.col))?;
    match &g.weights {
        None => {}
        Some(Weights::Int(w)) => section(&mut out, &mut w.iter().map(|x| x.to_le_bytes()))?,
        Some(Weights::Float(w)) => section(&mut out, &mut w.iter().map(|x| x.to_bits().to_le_bytes()))?,
        Some(Weights::U32(w)) => section(&mut out, &mut packed(w))?,
    }
    if let NodeLabels::Explicit(ids) = &g.labels {
        section(&mut out, &mut ids.iter().map(|x| x.to_le_bytes()))?;
    }
    out.write_all(&sum.finish().to_le_bytes())?;
    out.flush()
}

/// Reads a cache file written by [`save_cache`], verifying its length, checksum and structure.
pub fn load_cache(path: &Path) -> Result<Csr, LoadError> {
    let name = display_name(path);
    let bad = |msg: &str| LoadError::invalid(&name, format!("not a valid graph cache: {msg}"));
    let file = File::open(path).map_err(|e| LoadError::io(path, e))?;
    let size = file.metadata().map_err(|e| LoadError::io(path, e))?.len();
    let mut r = CacheReader { inner: BufReader::with_capacity(1 << 20, file), sum: Checksum::new() };
    let io = |e: io::Error| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            bad("truncated")
        } else {
            LoadError::io(path, e)
        }
    };

    if size < HEADER_LEN + 8 {
        return Err(bad("shorter than the header"));
    }
    let mut header = [0u8; HEADER_LEN as usize];
    r.read(&mut header).map_err(io)?;
    if header[..8] != MAGIC {
        return Err(bad("wrong magic bytes"));
    }
    let word = |i: usize| u64::from_le_bytes(header[i..i + 8].try_into().unwrap_or_default());
    let version = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
    if version != CACHE_VERSION {
        return Err(bad(&format!("version {version}, expected {CACHE_VERSION}")));
    }
    let (wkind, lkind) = (header[12], header[13]);
    if wkind > 3 || lkind > 1 || header[14..16] != [0, 0] {
        return Err(bad("unknown weight or label kind"));
    }
    let (n, m, offset) = (word(16), word(24), word(32));
    if n >= u32::MAX as u64 {
        return Err(bad("node count does not fit in 32 bits"));
    }
    // The exact length the header implies, in u128 so a lying header cannot overflow it.
    let expected: u128 = HEADER_LEN as u128
        + 8 * (n as u128 + 1)
        + 8 * (m as u128).div_ceil(2)
        + match wkind {
            0 => 0,
            3 => 8 * (m as u128).div_ceil(2),
            _ => 8 * m as u128,
        }
        + if lkind == 1 { 8 * n as u128 } else { 0 }
        + 8;
    if expected != size as u128 {
        return Err(bad(&format!("the header implies {expected} bytes but the file has {size}")));
    }

    let row_start = r.u64s(n + 1).map_err(io)?;
    let col = r.u32s(m).map_err(io)?;
    let weights = match wkind {
        1 => Some(Weights::Int(r.u64s(m).map_err(io)?.into_iter().map(|w| w as i64).collect::<Vec<_>>().into())),
        2 => Some(Weights::Float(r.u64s(m).map_err(io)?.into_iter().map(f64::from_bits).collect::<Vec<_>>().into())),
        3 => Some(Weights::U32(r.u32s(m).map_err(io)?.into())),
        _ => None,
    };
    let labels = if lkind == 1 { NodeLabels::Explicit(r.u64s(n).map_err(io)?) } else { NodeLabels::Offset(offset) };
    let computed = r.sum.finish();
    let mut stored = [0u8; 8];
    r.inner.read_exact(&mut stored).map_err(io)?;
    if u64::from_le_bytes(stored) != computed {
        return Err(bad("checksum mismatch"));
    }
    let g = Csr::new(row_start, col, weights, labels);
    g.check_invariants().map_err(|e| bad(&e))?;
    Ok(g)
}

/// Reads 8-byte words while updating the checksum.
struct CacheReader {
    inner: BufReader<File>,
    sum: Checksum,
}

impl CacheReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_exact(buf)?;
        self.sum.update(buf);
        Ok(())
    }

    /// `count` little-endian u64s, read straight into their array (a large read bypasses the buffer), checksummed
    /// in place: kron22's 1 GB cache took 6 s to read a word at a time on two cores.
    fn u64s(&mut self, count: u64) -> io::Result<Vec<u64>> {
        let mut out = vec![0u64; count as usize];
        self.read(bytemuck::cast_slice_mut(&mut out))?;
        out.iter_mut().for_each(|x| *x = u64::from_le(*x));
        Ok(out)
    }

    /// `count` little-endian u32s, packed two to a word, the last word padded with zeros when `count` is odd.
    fn u32s(&mut self, count: u64) -> io::Result<Vec<u32>> {
        let mut out = vec![0u32; count as usize];
        let whole = out.len() / 2 * 2;
        self.read(bytemuck::cast_slice_mut(&mut out[..whole]))?;
        if whole < out.len() {
            let mut last = [0u8; 8];
            self.read(&mut last)?;
            out[whole] = u32::from_le_bytes([last[0], last[1], last[2], last[3]]);
        }
        out.iter_mut().for_each(|x| *x = u32::from_le(*x));
        Ok(out)
    }
}

/// The cache key: a BLAKE3 hash of every input that changes the result (stable across Rust versions, unlike
/// `DefaultHasher`, and, being cryptographic, not fooled by a crafted file as a CRC would be).
struct KeyHash(blake3::Hasher);

impl KeyHash {
    fn add(&mut self, bytes: &[u8]) {
        // Each part with its length first, so ("ab", "c") and ("a", "bc") differ.
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }
}

/// The BLAKE3 hash of a file's whole contents (hashed on every core): part of the cache key, so that a file
/// replaced by another of the same size and modification time (`cp -p`, `rsync -t`) is not read from a stale
/// cache. About 0.3 s for a 1 GB file on two cores.
fn content_hash(path: &Path) -> Result<[u8; 32], LoadError> {
    let mut h = blake3::Hasher::new();
    h.update_mmap_rayon(path).map_err(|e| LoadError::io(path, e))?;
    Ok(*h.finalize().as_bytes())
}

/// The cache file for loading `path` with `opts`: named after the input, keyed by the canonical path, size,
/// modification time and contents (BLAKE3) of every input file and by everything in the options that changes
/// the result.
pub fn cache_path(path: &Path, opts: &LoadOptions, cache_dir: &Path) -> Result<PathBuf, LoadError> {
    let mut h = KeyHash(blake3::Hasher::new());
    h.add(&CACHE_VERSION.to_le_bytes());
    for file in input_files(path, opts.format)? {
        let canonical = file.canonicalize().map_err(|e| LoadError::io(&file, e))?;
        let meta = std::fs::metadata(&canonical).map_err(|e| LoadError::io(&file, e))?;
        let mtime = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).unwrap_or_default();
        h.add(canonical.to_string_lossy().as_bytes());
        h.add(&meta.len().to_le_bytes());
        h.add(&mtime.as_nanos().to_le_bytes());
        h.add(&content_hash(&canonical)?);
    }
    h.add(opts.format.map_or("auto", |f| f.name()).as_bytes());
    let b = opts.build;
    h.add(&[b.symmetrize as u8, b.drop_self_loops as u8, b.dedupe as u8]);
    match opts.weights {
        WeightSpec::AsFile => h.add(b"file"),
        WeightSpec::Constant(c) => {
            h.add(b"const");
            h.add(&c.to_le_bytes());
        }
        WeightSpec::UniformInt { lo, hi, seed } => {
            h.add(b"uniform");
            h.add(&lo.to_le_bytes());
            h.add(&hi.to_le_bytes());
            h.add(&seed.to_le_bytes());
        }
    }
    // Nothing is added without a selection, so caches made before selections existed stay valid.
    if let Some(c) = &opts.columns {
        h.add(b"columns:");
        h.add(c.to_string().as_bytes());
    }
    let stem: String = display_name(path)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .take(64)
        .collect();
    let key = h.0.finalize().to_hex();
    Ok(cache_dir.join(format!("{stem}-{}.csr", &key[..32])))
}

/// Loads `path` like [`load_graph`], through a cache in `cache_dir` (created if missing): a valid cache for the same
/// input files (path, size, modification time, contents) and options is used as is; otherwise the input is parsed and the
/// cache (re)written. An invalid cache is never an error, only a miss; failing to write the cache is an error, as
/// the caller asked for one in `cache_dir`.
pub fn load_graph_cached(
    path: &Path,
    opts: &LoadOptions,
    cache_dir: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Csr, CacheOutcome), LoadError> {
    let cache = cache_path(path, opts, cache_dir)?;
    let existed = cache.exists();
    if existed {
        if let Ok(mut g) = load_cache(&cache) {
            let total = cache.metadata().map(|m| m.len()).unwrap_or(0);
            progress(total, total);
            g.keep_derived_beside(&cache);
            return Ok((g, CacheOutcome::Hit));
        }
    }
    let mut g = load_graph(path, opts, progress)?;
    g.keep_derived_beside(&cache);
    std::fs::create_dir_all(cache_dir).map_err(|e| LoadError::io(cache_dir, e))?;
    save_cache(&g, &cache).map_err(|e| match e {
        WriteError::Io { path, source } => LoadError::Io { path, source },
        WriteError::Unsupported { file, msg } => LoadError::Invalid { file, msg },
    })?;
    Ok((g, if existed { CacheOutcome::Rebuilt } else { CacheOutcome::Built }))
}

impl Csr {
    /// The graph numbered by decreasing degree ([`Renumbered`]), or `None` where that does not pay
    /// ([`Csr::degrees_skewed`]): what a `degree_ordered` program runs on. Computed once per graph and kept with
    /// it (a Python session's or a bench's later runs find it), and, for a graph loaded through the graph cache,
    /// kept beside its cache file ([`Csr::keep_derived_beside`]), so a later process reads it at disk speed
    /// instead of computing it (kron22 on two cores: about 3 s computed, 0.7 s read). Weights come along only
    /// `with_weights` (for a program that reads them).
    pub fn degree_ordered(&self, with_weights: bool) -> Option<Arc<Renumbered>> {
        if !self.degrees_skewed() {
            return None;
        }
        Some(self.kept_renumbering(with_weights, |g| {
            let order = g.degree_order();
            let kept = g.cache_file().map(|f| kept_path(f, with_weights && g.weights.is_some()));
            if let Some(r) = kept.as_deref().and_then(|path| g.read_kept(path, &order, with_weights)) {
                return r;
            }
            let r = g.renumber(order, with_weights);
            if let Some(path) = &kept {
                // Without the labels, which `read_kept` takes from `order`. The cache only saves time: a full
                // disk or a read-only directory costs the next run the renumbering, nothing else.
                let c = &r.csr;
                let bare = Csr::new(c.row_start.clone(), c.col.clone(), c.weights.clone(), NodeLabels::Offset(0));
                let _ = save_cache(&bare, path);
            }
            r
        }))
    }

    /// The renumbering kept at `path`, if there is one and it is this graph's by `order`: the right node and edge
    /// counts, weights where they are wanted, and each new row as long as its node's old one. (Its own checksum
    /// and [`Csr::check_invariants`] are checked as it is read; rows whose destinations were renamed wrongly
    /// could pass all of these only in a file written by something other than this function's counterpart.)
    fn read_kept(&self, path: &Path, order: &[u32], with_weights: bool) -> Option<Renumbered> {
        if !path.exists() {
            return None;
        }
        let kept = load_cache(path).ok()?;
        let weights = self.weights.as_ref().filter(|_| with_weights);
        let same_kind = match (weights, &kept.weights) {
            (None, None) => true,
            (Some(a), Some(b)) => std::mem::discriminant(a) == std::mem::discriminant(b),
            _ => false,
        };
        let fits = kept.num_nodes() == self.num_nodes()
            && kept.num_edges() == self.num_edges()
            && same_kind
            && order.par_iter().enumerate().all(|(i, &v)| kept.degree(i as u32) == self.degree(v));
        if !fits {
            return None;
        }
        let (rank, labels) = self.ranks_and_labels(order);
        let csr = Csr::new(kept.row_start, kept.col, kept.weights, labels);
        Some(Renumbered { csr, rank, from_cache: true })
    }

    /// [`Csr::missing_reverse`] (every run of an undirected program asks it), computed once per graph and kept with
    /// it, and, for a graph loaded through the graph cache, kept beside its cache file so that a later process
    /// reads the verdict instead of building the transpose again (kron22 on two cores: 2.8 s a run, uncounted
    /// before any set-up part). The kept verdict names the cache file's own checksum, so it is believed only for
    /// exactly the contents it was computed on.
    pub fn missing_reverse_kept(&self) -> Option<(u32, u32)> {
        self.kept_symmetry(|g| {
            let beside = g.cache_file().and_then(|f| Some((f.with_extension("symmetry"), cache_checksum(f)?)));
            if let Some((path, sum)) = &beside {
                if let Some(verdict) = read_verdict(path, *sum, g.num_nodes()) {
                    return verdict;
                }
            }
            let verdict = g.missing_reverse();
            if let Some((path, sum)) = &beside {
                // The kept verdict only saves time: failing to write it costs the next run the check, nothing else.
                let _ = write_verdict(path, *sum, verdict);
            }
            verdict
        })
    }
}

/// The checksum a cache file ends with (see [`save_cache`]): what names its contents.
fn cache_checksum(cache_file: &Path) -> Option<u64> {
    let mut f = File::open(cache_file).ok()?;
    f.seek(io::SeekFrom::End(-8)).ok()?;
    let mut sum = [0u8; 8];
    f.read_exact(&mut sum).ok()?;
    Some(u64::from_le_bytes(sum))
}

const VERDICT_MAGIC: &str = "irgc symmetry 1";

/// A kept symmetry verdict: `Some(None)` (symmetric) or `Some(Some((u, v)))` (u -> v lacks its reverse) when the
/// file is one [`write_verdict`] wrote for the cache file whose checksum is `sum`; `None` otherwise.
fn read_verdict(path: &Path, sum: u64, num_nodes: u32) -> Option<Option<(u32, u32)>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != VERDICT_MAGIC || lines.next()? != format!("{sum:016x}") {
        return None;
    }
    let verdict = match lines.next()?.split_whitespace().collect::<Vec<_>>()[..] {
        ["symmetric"] => None,
        ["missing", u, v] => Some((u.parse().ok()?, v.parse().ok()?)),
        _ => return None,
    };
    match verdict {
        Some((u, v)) if u >= num_nodes || v >= num_nodes => None,
        _ => Some(verdict),
    }
}

/// Writes a symmetry verdict for the cache file whose checksum is `sum`, atomically (as [`save_cache`]).
fn write_verdict(path: &Path, sum: u64, verdict: Option<(u32, u32)>) -> io::Result<()> {
    let what = match verdict {
        None => "symmetric".to_string(),
        Some((u, v)) => format!("missing {u} {v}"),
    };
    write_atomically(path, |tmp| std::fs::write(tmp, format!("{VERDICT_MAGIC}\n{sum:016x}\n{what}\n")))
}

/// Where the renumbering of the graph cached at `cache_file` is kept: beside it, named after it (so a changed
/// input, which gets a new cache file, never finds an old renumbering), with or without the weights.
fn kept_path(cache_file: &Path, with_weights: bool) -> PathBuf {
    let suffix = if with_weights { "by-degree-weighted.csr" } else { "by-degree.csr" };
    cache_file.with_extension(suffix)
}
