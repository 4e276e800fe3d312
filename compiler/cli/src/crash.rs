//! The last line of defence for a CPU run without `--check-bounds`: kernels are native code, and a program that
//! indexes outside an array can fault (SIGSEGV, SIGBUS) or corrupt the heap so that the allocator aborts later
//! (SIGABRT). Instead of dying with only the shell's "Segmentation fault", the process says what most likely
//! happened and how to find it, then exits with status 1.
//!
//! The handler only writes a fixed message with `write(2)` and calls `_exit(2)`: both async-signal-safe. It is
//! installed just for the run itself (`Guard`), so crashes elsewhere keep their default behaviour (and Rust's own
//! stack-overflow report).
#![allow(unsafe_code)]

const MESSAGE: &[u8] =
    b"\nerror: the run crashed (a memory fault or an aborted allocator) while kernels were running: \
a kernel most likely indexed outside an array or the graph. Run again with --check-bounds (or --verify) to stop \
at the first bad index with its kernel, array, index, bound and source line.\n";

const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT, libc::SIGILL];

extern "C" fn report(_signal: libc::c_int) {
    // SAFETY: write(2) and _exit(2) are async-signal-safe; MESSAGE is a static byte string.
    unsafe {
        libc::write(libc::STDERR_FILENO, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::_exit(1);
    }
}

/// While alive, a crash of the process is reported as a probable bad index (see the module documentation).
pub struct Guard {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl Guard {
    pub fn install() -> Guard {
        let mut previous = Vec::new();
        for sig in SIGNALS {
            // SAFETY: a zeroed sigaction is a valid starting point; the handler has the plain one-argument form
            // (no SA_SIGINFO) and runs on the alternate stack Rust sets up for each thread where there is one.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = report as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &action, &mut old) == 0 {
                    previous.push((sig, old));
                }
            }
        }
        Guard { previous }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        for (sig, old) in &self.previous {
            // SAFETY: restores the action saved by `install`.
            unsafe {
                libc::sigaction(*sig, old, std::ptr::null_mut());
            }
        }
    }
}
