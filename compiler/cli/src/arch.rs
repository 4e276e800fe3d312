//! The default PTX target of `irgc compile`: the GPU in this machine, else `sm_80`.
//!
//! Asking the driver costs more than compiling a program (initialising CUDA takes 100–200 ms), so the answer is
//! remembered in the cache directory, keyed by what identifies the GPUs and the driver: the NVIDIA driver's
//! version text and the PCI addresses of its GPUs (`/proc/driver/nvidia`). A machine without that directory has
//! no NVIDIA driver loaded, and gets `sm_80` at once, without loading any library.

use std::path::Path;

/// The oldest target irgc emits: its PTX runs on every GPU irgc supports.
const FALLBACK: &str = "sm_80";

/// The PTX target for this machine's GPU 0, or `sm_80` when there is none.
pub fn default_arch() -> String {
    let Some(key) = machine_key(Path::new("/proc/driver/nvidia")) else {
        return FALLBACK.to_string();
    };
    let cache = crate::graph_input::cache_dir().map(|d| d.join("gpu-arch"));
    if let Some(arch) = cache.as_deref().and_then(|c| remembered(c, &key)) {
        return arch;
    }
    let arch = irgc_cuda::detect_arch().unwrap_or_else(|| FALLBACK.to_string());
    if let Some(c) = cache {
        // Best effort: without a writable cache the next compile asks the driver again.
        let _ = c.parent().map(std::fs::create_dir_all);
        let _ = std::fs::write(&c, format!("{key}\n{arch}\n"));
    }
    arch
}

/// What identifies the driver and its GPUs, on one line; `None` without an NVIDIA driver.
fn machine_key(proc_dir: &Path) -> Option<String> {
    let version = std::fs::read_to_string(proc_dir.join("version")).ok()?;
    let mut gpus: Vec<String> = std::fs::read_dir(proc_dir.join("gpus"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    gpus.sort();
    let version = version.lines().next().unwrap_or("").trim().to_string();
    Some(format!("{version} | {}", gpus.join(",")))
}

/// The target stored in `cache` for `key`, if that is what it holds.
fn remembered(cache: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(cache).ok()?;
    let mut lines = text.lines();
    let arch = (lines.next()? == key).then(|| lines.next())??;
    irgc_backend_ptx::ARCHS.contains(&arch).then(|| arch.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_answers_only_for_the_same_machine() {
        let dir = std::env::temp_dir().join(format!("irgc-arch-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("proc/gpus/0000:01:00.0")).unwrap();
        std::fs::write(dir.join("proc/version"), "NVRM version: 580.1\nGCC\n").unwrap();
        let key = machine_key(&dir.join("proc")).unwrap();
        assert_eq!(key, "NVRM version: 580.1 | 0000:01:00.0");
        assert_eq!(machine_key(&dir.join("nothing")), None);
        let cache = dir.join("gpu-arch");
        std::fs::write(&cache, format!("{key}\nsm_90\n")).unwrap();
        assert_eq!(remembered(&cache, &key).as_deref(), Some("sm_90"));
        assert_eq!(remembered(&cache, "another driver"), None);
        std::fs::write(&cache, format!("{key}\nsm_12\n")).unwrap();
        assert_eq!(remembered(&cache, &key), None, "not a target irgc emits");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
