//! The last line of defence for a CPU run without `--check-bounds`: kernels are native code, and a program that
//! indexes outside an array can fault (SIGSEGV, SIGBUS) or corrupt the heap so that the allocator aborts later
//! (SIGABRT). Instead of dying with only the shell's "Segmentation fault", the process says what most likely
//! happened and how to find it, then exits with status 1.
//!
//! The handler only writes a fixed message with `write(2)` and calls `_exit(2)`: both async-signal-safe. It is
//! armed just before the first CPU kernel runs ([`arm`]), so crashes before (the front end, loading) keep their
//! default behaviour (and Rust's own stack-overflow report).
#![allow(unsafe_code)]

const MESSAGE: &[u8] = b"\nerror: the run crashed (a memory fault or an aborted allocator) after its kernels started: \
a kernel most likely indexed outside an array or the graph (a corrupted heap can show only later, at a free), \
or the process ran out of memory (\"memory allocation of N bytes failed\" above says so). Run again with \
--check-bounds (or --verify) to stop at the first bad index with its kernel, array, index, bound and source line.\n";

const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT, libc::SIGILL];

extern "C" fn report(_signal: libc::c_int) {
    // SAFETY: write(2) and _exit(2) are async-signal-safe; MESSAGE is a static byte string.
    unsafe {
        libc::write(libc::STDERR_FILENO, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::_exit(1);
    }
}

/// From the first CPU kernel launch to the end of the process, a crash is reported as a probable bad index
/// (see the module documentation). It stays armed after the kernels finish on purpose: a kernel that corrupted
/// the heap is caught only when the allocator next checks it, which may be at a later free (reading the outputs,
/// the end of the run, the next run of a bench).
pub fn arm() {
    static ARMED: std::sync::Once = std::sync::Once::new();
    ARMED.call_once(|| {
        for sig in SIGNALS {
            // SAFETY: a zeroed sigaction is a valid starting point; the handler has the plain one-argument form
            // (no SA_SIGINFO) and runs on the alternate stack Rust sets up for each thread where there is one.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = report as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    });
}
