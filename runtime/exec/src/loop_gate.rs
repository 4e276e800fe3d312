//! Whether an outlined loop (`while step() { .. }`, see `irgc_front::ir::OutlinedLoop`) runs in its persistent
//! kernel, decided for each run of the loop from rounds it measured.
//!
//! A persistent kernel saves each round a launch and the read-back of the reduction the loop tests, about 15–20 µs
//! on an H200, but its sweeps run on a grid sized for its barriers instead of one sized for the work, and starting
//! it costs more than a launch (about 0.1 ms). On one H200 (`docs/traversals.md`, "Outlined loops") light rounds
//! ran 2–4× faster in it (BFS levels on road and grid2k: 26 → 6 µs), heavy ones slower (SSSP relaxations on rgg22:
//! 152 → 191 µs; a trial of 4 of IPGC's ~35 ms rounds made kron22's run 1.58× slower), and a loop of a few rounds
//! paid for the start.
//! The kind of a graph does not tell them apart (grid2k's atomic SSSP won, rgg22's lost), so
//! [`LoopOutlining::Auto`] measures instead: the loop runs [`HOST_ROUNDS_FIRST`] rounds from the host, timed; unless
//! they were heavier than [`HEAVY_ROUND`], a trial of a few rounds in the kernel follows ([`trial_rounds`]), timed
//! from the host as well; then the rest of the loop runs wherever a round was faster. A loop that ends within its
//! host rounds never starts the kernel, and a trial costs at most about [`TRIAL_SECONDS`] of rounds run the slower
//! way.

use crate::{LoopChoice, LoopOutlining};

/// Rounds an outlined loop runs from the host, timed, before its trial in the kernel: a loop that ends within them
/// (IPGC's 9 rounds on road and grid2k, Shiloach-Vishkin's and CC-update's few) never pays for the kernel's start,
/// which made them 7–45% slower with 8 (H200, 2026-11-29). The first of them is not counted: it also pays for cold
/// caches.
pub const HOST_ROUNDS_FIRST: usize = 16;

/// A loop whose host rounds took longer than this (seconds, the median) stays on the host: the kernel could save
/// it a launch and a read-back a round (at most ~20%), and its sweeps ran slower there (Louvain's moves on road and
/// rgg22 6–10%, PageRank on rgg22 6%, IPGC on kron22 58% with a trial of 4 rounds).
pub const HEAVY_ROUND: f64 = 100e-6;

/// About how long a trial in the kernel runs, in seconds of host rounds: long enough that the kernel's start (its
/// state's upload and read-back, a cooperative launch: about 0.1 ms on an H200) is a small part of a round's
/// measured time, short enough that a loop whose rounds are slower in the kernel loses little.
pub const TRIAL_SECONDS: f64 = 0.5e-3;
/// The fewest rounds of a trial.
pub const MIN_TRIAL: u64 = 4;
/// The most rounds of a trial.
pub const MAX_TRIAL: u64 = 64;

/// The rounds of a trial after host rounds of `seconds` each (the median): [`TRIAL_SECONDS`] of them, within
/// [`MIN_TRIAL`]..=[`MAX_TRIAL`].
pub fn trial_rounds(seconds: f64) -> u64 {
    if seconds.is_nan() || seconds <= 0.0 {
        return MAX_TRIAL;
    }
    ((TRIAL_SECONDS / seconds).ceil() as u64).clamp(MIN_TRIAL, MAX_TRIAL)
}

/// Where the next round of an outlined loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// From the host, as an ordinary loop.
    Host,
    /// In the kernel: for at most this many rounds (a trial), or to the loop's end.
    Kernel(Option<u64>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Timing host rounds (the times so far, at most `HOST_ROUNDS_FIRST`).
    Measuring,
    /// The trial is due: the host rounds took this long each (the median).
    Trial(f64),
    /// Decided: the rest of the loop runs here.
    Kernel,
    Host,
}

/// The decision for one run of one outlined loop.
#[derive(Clone, Debug)]
pub struct LoopGate {
    state: State,
    host: Vec<f64>,
}

impl LoopGate {
    pub fn new(mode: LoopOutlining) -> Self {
        let state = match mode {
            LoopOutlining::Never => State::Host,
            LoopOutlining::Always => State::Kernel,
            LoopOutlining::Auto => State::Measuring,
        };
        LoopGate { state, host: Vec::new() }
    }

    /// Where the next round runs.
    pub fn next(&self) -> Next {
        match self.state {
            State::Measuring | State::Host => Next::Host,
            State::Trial(host) => Next::Kernel(Some(trial_rounds(host))),
            State::Kernel => Next::Kernel(None),
        }
    }

    /// A round ran from the host in `seconds`.
    pub fn host_round(&mut self, seconds: f64) {
        if self.state != State::Measuring {
            return;
        }
        self.host.push(seconds);
        if self.host.len() >= HOST_ROUNDS_FIRST {
            let mut times = self.host[1..].to_vec();
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            self.state = if median > HEAVY_ROUND { State::Host } else { State::Trial(median) };
        }
    }

    /// The trial ran `rounds` rounds in the kernel in `seconds` (start and read-back included) and the loop goes
    /// on: the rest runs in the kernel if a round was faster there than from the host. What it measured and
    /// decided, for the run's statistics.
    pub fn trial(&mut self, rounds: u64, seconds: f64) -> Option<LoopChoice> {
        let State::Trial(host) = self.state else {
            return None;
        };
        let kernel = seconds / rounds.max(1) as f64;
        let faster = rounds > 0 && kernel < host;
        self.state = if faster { State::Kernel } else { State::Host };
        Some(LoopChoice { host_us: host * 1e6, kernel_us: kernel * 1e6, trial_rounds: rounds, kept_kernel: faster })
    }

    /// The device would not run the loop's kernel (none on this device, or statistics asked for): the rest of the
    /// loop runs from the host.
    pub fn declined(&mut self) {
        self.state = State::Host;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(round: f64) -> LoopGate {
        let mut g = LoopGate::new(LoopOutlining::Auto);
        for i in 0..HOST_ROUNDS_FIRST {
            assert_eq!(g.next(), Next::Host, "host round {i}");
            // A cold first round, ten times slower, does not count.
            g.host_round(if i == 0 { 10.0 * round } else { round });
        }
        g
    }

    #[test]
    fn never_and_always_do_not_measure() {
        let mut never = LoopGate::new(LoopOutlining::Never);
        let mut always = LoopGate::new(LoopOutlining::Always);
        for _ in 0..2 * HOST_ROUNDS_FIRST {
            never.host_round(1e-6);
            always.host_round(1e-6);
        }
        assert_eq!(never.next(), Next::Host);
        assert_eq!(always.next(), Next::Kernel(None));
    }

    #[test]
    fn auto_runs_its_first_rounds_from_the_host_then_a_trial() {
        let g = measured(26e-6);
        assert_eq!(g.next(), Next::Kernel(Some(trial_rounds(26e-6))));
        assert_eq!(trial_rounds(26e-6), 20, "0.5 ms of 26 µs rounds");
    }

    #[test]
    fn heavy_rounds_stay_on_the_host_without_a_trial() {
        let g = measured(152e-6);
        assert_eq!(g.next(), Next::Host, "an SSSP relaxation on rgg22");
        let g = measured(HEAVY_ROUND);
        assert_eq!(g.next(), Next::Kernel(Some(trial_rounds(HEAVY_ROUND))), "at the limit: a trial");
    }

    #[test]
    fn a_trial_is_a_few_rounds_when_they_are_heavy_and_bounded_when_light() {
        assert_eq!(trial_rounds(HEAVY_ROUND), 5);
        assert_eq!(trial_rounds(152e-6), 4);
        assert_eq!(trial_rounds(1e-3), MIN_TRIAL);
        assert_eq!(trial_rounds(1e-6), MAX_TRIAL);
        assert_eq!(trial_rounds(0.0), MAX_TRIAL, "an unmeasurably short round");
    }

    #[test]
    fn the_rest_of_the_loop_runs_where_a_round_was_faster() {
        let mut light = measured(26e-6);
        let choice = light.trial(20, 20.0 * 8e-6).unwrap();
        assert_eq!(light.next(), Next::Kernel(None), "a BFS level on road: 26 → 8 µs");
        assert!(choice.kept_kernel && choice.trial_rounds == 20);
        assert!((choice.host_us - 26.0).abs() < 1e-9 && (choice.kernel_us - 8.0).abs() < 1e-9);
        assert_eq!(light.trial(20, 1.0), None, "one trial a run");
        let mut slower = measured(40e-6);
        slower.trial(13, 13.0 * 50e-6);
        assert_eq!(slower.next(), Next::Host, "rounds slower in the kernel: 40 → 50 µs");
        let mut none = measured(26e-6);
        none.trial(0, 1e-3);
        assert_eq!(none.next(), Next::Host, "no round ran: nothing to go on");
    }

    #[test]
    fn the_median_host_round_decides_not_an_outlier() {
        let mut g = LoopGate::new(LoopOutlining::Auto);
        // A cold first round, and two stalls among the others.
        let times =
            [1.0, 20e-6, 5e-3, 21e-6, 19e-6, 20e-6, 20e-6, 20e-6, 9e-3, 20e-6, 20e-6, 19e-6, 21e-6, 20e-6, 20e-6];
        for t in times.iter().chain([20e-6].iter().cycle()).take(HOST_ROUNDS_FIRST) {
            g.host_round(*t);
        }
        assert_eq!(g.next(), Next::Kernel(Some(trial_rounds(20e-6))));
    }

    #[test]
    fn a_declining_device_leaves_the_loop_to_the_host() {
        let mut g = measured(26e-6);
        g.declined();
        assert_eq!(g.next(), Next::Host);
        let mut always = LoopGate::new(LoopOutlining::Always);
        always.declined();
        assert_eq!(always.next(), Next::Host);
    }
}
