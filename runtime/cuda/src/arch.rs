//! Which PTX target to compile for, given the GPU's compute capability.
//!
//! The PTX backend targets `sm_80` to `sm_90`. PTX is forward compatible (the driver compiles it for the GPU it
//! loads on), so a newer GPU runs `sm_90` code; an older one cannot run what the backend emits.

/// The targets the PTX backend knows, oldest first, as compute capabilities (major × 10 + minor).
const KNOWN: &[u32] = &[80, 86, 87, 89, 90];

/// The newest target at or below compute capability `major.minor`, capped at `sm_90`; an error (saying why) for
/// GPUs older than `sm_80`.
pub fn arch_for(major: i32, minor: i32) -> Result<String, String> {
    let cc = (major.max(0) as u32) * 10 + minor.max(0) as u32;
    match KNOWN.iter().rev().find(|&&k| k <= cc) {
        Some(k) => Ok(format!("sm_{k}")),
        None => {
            Err(format!("the GPU has compute capability {major}.{minor}, but irgc's PTX needs sm_80 (Ampere) or newer"))
        }
    }
}

/// The PTX target for the GPU in this machine (GPU 0), if it has one irgc can run on: the default of
/// `irgc compile --arch`.
pub fn detect_arch() -> Option<String> {
    let (major, minor) = crate::driver::capability_of_first_gpu()?;
    arch_for(major, minor).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_map_to_the_newest_known_target() {
        assert_eq!(arch_for(9, 0).unwrap(), "sm_90");
        assert_eq!(arch_for(8, 0).unwrap(), "sm_80");
        assert_eq!(arch_for(8, 6).unwrap(), "sm_86");
        assert_eq!(arch_for(8, 9).unwrap(), "sm_89");
        assert_eq!(arch_for(8, 8).unwrap(), "sm_87");
        assert_eq!(arch_for(10, 0).unwrap(), "sm_90");
        assert_eq!(arch_for(12, 0).unwrap(), "sm_90");
        assert!(arch_for(7, 5).unwrap_err().contains("compute capability 7.5"));
    }
}
