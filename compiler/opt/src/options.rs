//! Which passes run, and what the optimizer reports about them.

use std::collections::BTreeSet;

/// The optimizer's switches. The default runs every pass and validates after each one in debug builds.
#[derive(Clone, Debug)]
pub struct Options {
    /// Passes not to run (by name).
    pub disabled: BTreeSet<String>,
    /// Passes after which to print the IR (by name).
    pub print_after: BTreeSet<String>,
    /// Run the IR validator after every pass.
    pub validate: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { disabled: BTreeSet::new(), print_after: BTreeSet::new(), validate: cfg!(debug_assertions) }
    }
}

impl Options {
    /// No pass runs: the IR goes to the backends as the front end made it.
    pub fn none() -> Self {
        Options { disabled: super::PASSES.iter().map(|p| p.name.to_string()).collect(), ..Options::default() }
    }

    pub fn enabled(&self, pass: &str) -> bool {
        !self.disabled.contains(pass)
    }

    /// Options with `pass` disabled too.
    pub fn without(mut self, pass: &str) -> Self {
        self.disabled.insert(pass.to_string());
        self
    }
}
