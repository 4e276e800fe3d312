//! Graph inputs shared by the CLI and the Python package: where the binary CSR cache lives, loading a file through
//! it, the `--weights` spec, and generating a graph from a `gen:` spec only when it fits in memory.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use irgc_graph::{load_graph, load_graph_cached, CacheOutcome, Csr, LoadOptions, WeightSpec};

/// The cache directory: `$XDG_CACHE_HOME/irgc`, else `~/.cache/irgc`; `None` if neither is set.
pub fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("irgc"))
}

/// Whether files can be created in `dir` (created if missing).
pub fn writable(dir: &Path) -> bool {
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// Parses `--weights`: `const:W` or `random:LO:HI[:SEED]` (see `WeightSpec`'s `FromStr`).
pub fn parse_weights(s: &str) -> Result<WeightSpec, String> {
    s.parse()
}

/// Loads the graph file at `path` through the cache when `use_cache` and the cache directory is writable (else
/// straight from the file), as `irgc run --graph FILE` does; `progress` gets (bytes read, total).
pub fn load_file(
    path: &Path,
    opts: &LoadOptions,
    use_cache: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Csr, Option<CacheOutcome>)> {
    let dir = cache_dir().filter(|d| use_cache && writable(d));
    let result = match &dir {
        Some(d) => load_graph_cached(path, opts, d, progress).map(|(g, o)| (g, Some(o))),
        None => load_graph(path, opts, progress).map(|g| (g, None)),
    };
    // The load error already names the file (and the OS error).
    result.map_err(|e| anyhow!("cannot load the graph: {e}"))
}

/// Generates the graph of `spec` (without the `gen:` prefix), refusing one that does not fit in memory.
pub fn generate(spec: &str) -> Result<Csr> {
    let parsed = irgc_gen::GenSpec::parse(spec).map_err(|e| anyhow!("gen:{spec}: {e}"))?;
    fits_in_memory(&format!("gen:{spec}"), &parsed)?;
    irgc_gen::generate(&parsed).map_err(|e| anyhow!("gen:{spec}: {e}"))
}

/// Refuses a generator spec whose graph would not fit in the memory this machine has (instead of aborting on a
/// failed allocation halfway through), naming the bytes asked and available.
pub fn fits_in_memory(spec: &str, parsed: &irgc_gen::GenSpec) -> Result<()> {
    let need = parsed.estimated_bytes();
    if let Some(have) = irgc_runtime::memory::available_memory() {
        if need > have {
            let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
            anyhow::bail!(
                "generating `{spec}` needs about {:.1} GiB of memory, but this machine has {:.1} GiB available; \
                 choose a smaller scale, size or degree",
                gib(need),
                gib(have)
            );
        }
    }
    Ok(())
}
