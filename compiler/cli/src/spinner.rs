//! A spinner on standard error for work that takes a while (a run, a generator): it appears only after a second
//! and only when someone is watching (stderr is a terminal), so short runs, scripts and CI logs stay clean.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// What the spinner shows beside the elapsed time, asked again at every tick.
pub type Status = Box<dyn Fn() -> String + Send>;

/// A running spinner; it stops and clears its line when dropped.
pub struct Spinner {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Starts watching: after a second, if stderr is a terminal, a spinner with `status()` appears.
    pub fn start(status: Status) -> Spinner {
        let done = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Spinner { done, thread: None };
        }
        let flag = done.clone();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(1) {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let bar = ProgressBar::new_spinner().with_elapsed(start.elapsed());
            let style = ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            while !flag.load(Ordering::Relaxed) {
                bar.set_message(status());
                bar.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        });
        Spinner { done, thread: Some(thread) }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
