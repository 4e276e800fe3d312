//! `--timeout` for `run` and `bench`: a thread that ends the process when the time is up. A plan can loop on the
//! host without ever launching a kernel (`--max-launches` cannot see that), a kernel can loop forever, a load can
//! take longer than wanted: the watchdog stops all of them the same way, from outside.

use std::time::Duration;

/// The exit status of a command stopped by `--timeout` (as `timeout(1)` uses).
pub const TIMEOUT_EXIT: i32 = 124;

/// Parses `--timeout`: a positive number of seconds, fractions allowed, at most a year.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > 365.0 * 86400.0 {
        return Err(format!("`{text}`: give a number of seconds above 0 and at most a year"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Starts the watchdog for `command` when a timeout was given: after it, the process says so and exits with
/// [`TIMEOUT_EXIT`].
pub fn arm(timeout: Option<Duration>, command: &'static str) {
    let Some(limit) = timeout else { return };
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!("error: irgc {command} stopped after --timeout {} s", limit.as_secs_f64());
        std::process::exit(TIMEOUT_EXIT);
    });
}
