//! The optimizer: IR → IR passes between the front end and the backends.
//!
//! [`run`] is one straight-line walk over [`PASSES`], in order. Each pass lives in its own file under `passes/`,
//! has a stable name (what `--disable-pass` and `--print-after` take), a one-line summary (`irgc passes`), a
//! switch, a timer, and the numbers it may be tuned by ([`Param`], `--pass-param`). A pass records its decisions
//! in the IR itself (e.g. [`PlanOp::Outlined`]), so the IR printer shows them, the validator checks them and the
//! backends read them instead of deciding again. The validator runs after every pass when [`Options::validate`] is
//! set (debug builds and the tests set it); a pass that breaks an invariant is a compiler bug, reported as
//! [`OptError`].
//!
//! Analyses that several passes and the backends share (a kernel's worklist effects, what the device can
//! compute) live in `irgc_front::analysis`.
//!
//! [`PlanOp::Outlined`]: irgc_front::ir::PlanOp::Outlined

mod options;
mod passes;

pub use options::{parse_param, Options};
pub use passes::{Param, Pass, PASSES};

use irgc_front::ir::validate::ValidationError;
use irgc_front::ir::Module;
use irgc_front::span::Span;
use std::time::{Duration, Instant};

/// A decision a pass took, or declined, at a place of the source: what `irgc compile --explain` prints.
#[derive(Clone, Debug, PartialEq)]
pub struct Remark {
    pub span: Span,
    pub message: String,
}

/// What one pass did.
#[derive(Clone, Debug)]
pub struct PassRun {
    pub name: &'static str,
    /// False when the pass was disabled.
    pub ran: bool,
    /// How many places the pass changed (e.g. loops outlined).
    pub changes: usize,
    pub time: Duration,
    /// The IR printed after the pass, when `--print-after` named it.
    pub printed: Option<String>,
    /// Why the pass changed, or left, each place it considered.
    pub remarks: Vec<Remark>,
}

/// What [`run`] did, pass by pass, in order.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub passes: Vec<PassRun>,
}

/// A pass left the IR invalid: a compiler bug, reported with the pass's name.
#[derive(Debug)]
pub struct OptError {
    pub pass: &'static str,
    pub errors: Vec<ValidationError>,
}

impl std::fmt::Display for OptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internal compiler error: the IR is invalid after pass `{}`", self.pass)?;
        for e in &self.errors {
            write!(f, "\n  {}", e.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for OptError {}

/// Runs every enabled pass over `m`, in [`PASSES`] order.
pub fn run(m: &mut Module, options: &Options) -> Result<Report, OptError> {
    let mut report = Report::default();
    for pass in PASSES {
        let enabled = options.enabled(pass.name);
        let start = Instant::now();
        let mut remarks = Vec::new();
        let changes = if enabled { (pass.run)(m, options, &mut remarks) } else { 0 };
        let time = start.elapsed();
        if enabled && options.validate {
            irgc_front::ir::validate::validate(m).map_err(|errors| OptError { pass: pass.name, errors })?;
        }
        let printed = options.print_after.contains(pass.name).then(|| irgc_front::ir::print::print_module(m));
        report.passes.push(PassRun { name: pass.name, ran: enabled, changes, time, printed, remarks });
    }
    Ok(report)
}

/// The pass called `name`, if there is one.
pub fn pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}
