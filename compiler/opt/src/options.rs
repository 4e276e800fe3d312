//! Which passes run, and what the optimizer reports about them.

use std::collections::{BTreeMap, BTreeSet};

/// The optimizer's switches. The default runs every pass and validates after each one in debug builds.
#[derive(Clone, Debug)]
pub struct Options {
    /// Passes not to run (by name).
    pub disabled: BTreeSet<String>,
    /// Passes after which to print the IR (by name).
    pub print_after: BTreeSet<String>,
    /// Run the IR validator after every pass.
    pub validate: bool,
    /// Pass parameters set away from their defaults, by `PASS.NAME` ([`Options::set_param`]).
    pub params: BTreeMap<String, u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            disabled: BTreeSet::new(),
            print_after: BTreeSet::new(),
            validate: cfg!(debug_assertions),
            params: BTreeMap::new(),
        }
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

    /// Parameter `name` of pass `pass`: as set, else its default. Panics for a parameter no pass declares (a
    /// pass reading a name it did not declare is a compiler bug).
    pub fn param(&self, pass: &str, name: &str) -> u32 {
        if let Some(&v) = self.params.get(&format!("{pass}.{name}")) {
            return v;
        }
        declared(pass, name).map(|p| p.default).unwrap_or_else(|| panic!("pass `{pass}` declares no `{name}`"))
    }

    /// Sets a pass parameter from `PASS.NAME=N` (what `--pass-param` takes), after checking that the pass declares
    /// it and allows the value.
    pub fn set_param(&mut self, setting: &str) -> Result<(), String> {
        let (key, value) = parse_param(setting)?;
        self.params.insert(key, value);
        Ok(())
    }
}

/// The parameter `name` of pass `pass`, if it declares one.
fn declared(pass: &str, name: &str) -> Option<&'static crate::Param> {
    crate::pass(pass)?.params.iter().find(|p| p.name == name)
}

/// `PASS.NAME=N` checked against the passes' declarations: the key `PASS.NAME` and the value, or a message that
/// says what is wrong and what would be right.
pub fn parse_param(setting: &str) -> Result<(String, u32), String> {
    let every = || {
        let all: Vec<String> =
            crate::PASSES.iter().flat_map(|p| p.params.iter().map(move |q| format!("{}.{}", p.name, q.name))).collect();
        all.join(", ")
    };
    let Some((key, value)) = setting.split_once('=') else {
        return Err(format!("`{setting}` is not PASS.NAME=N (parameters: {})", every()));
    };
    let (pass, name) = key.split_once('.').unwrap_or((key, ""));
    let Some(param) = declared(pass, name) else {
        return Err(format!("no pass parameter `{key}` (parameters: {})", every()));
    };
    let allowed = || param.allowed.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    match value.trim().parse::<u32>() {
        Ok(v) if param.allowed.contains(&v) => Ok((key.to_string(), v)),
        _ => Err(format!("`{key}` is {}; it takes {}, not `{value}`", param.summary, allowed())),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_param, Options};

    #[test]
    fn a_pass_parameter_is_its_default_until_set_and_only_declared_names_and_allowed_values_are_taken() {
        let mut o = Options::default();
        assert_eq!(o.param("interleave", "factor"), 4);
        o.set_param("interleave.factor=8").expect("a declared parameter and an allowed value");
        assert_eq!((o.param("interleave", "factor"), o.param("unroll", "factor")), (8, 4));
        let err = parse_param("interleave.factor=3").expect_err("3 is not allowed");
        assert!(err.contains("takes 2, 4, 8, not `3`"), "{err}");
        let err = parse_param("np.factor=2").expect_err("np declares no parameter");
        assert!(err.contains("no pass parameter `np.factor`") && err.contains("interleave.factor"), "{err}");
        let err = parse_param("interleave.factor").expect_err("no value");
        assert!(err.contains("is not PASS.NAME=N"), "{err}");
        assert!(parse_param("unroll.factor=x").is_err());
    }
}
