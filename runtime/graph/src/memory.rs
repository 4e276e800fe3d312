//! How much memory this process can still get: what the loaders (and the runtime, the generators) check a size
//! against before allocating, so that a header claiming billions of nodes, or a graph too big for the machine,
//! is refused with the bytes asked and available instead of an allocator abort.

/// Bytes the process can still allocate: the machine's `MemAvailable`, lowered to the headroom under the
/// process's address-space limit (`ulimit -v`) when there is one; `None` where neither is known (not Linux).
pub fn available_memory() -> Option<u64> {
    let machine = meminfo_kib("/proc/meminfo", "MemAvailable:").map(|k| k * 1024);
    let headroom = address_space_limit().map(|limit| {
        let used = meminfo_kib("/proc/self/status", "VmSize:").map_or(0, |k| k * 1024);
        limit.saturating_sub(used)
    });
    match (machine, headroom) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A `NAME: <number> kB` line of a `/proc` file, in KiB.
fn meminfo_kib(file: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find(|l| l.starts_with(name))?.split_whitespace().nth(1)?.parse().ok()
}

/// The soft `Max address space` of `/proc/self/limits` in bytes; `None` when unlimited or unknown.
fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

/// Human-readable bytes for messages.
pub fn show_bytes(b: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    if b >= 1 << 30 {
        format!("{b} bytes ({:.1} GiB)", b as f64 / GIB)
    } else {
        format!("{b} bytes")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_machine_reports_some_memory() {
        let have = super::available_memory().expect("Linux reports MemAvailable");
        assert!(have > 1 << 20, "{have}");
    }
}
