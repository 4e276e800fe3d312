//! The pipeline's stages as data: what the harness compiles each test file through and snapshots.

use irgc_front::ir::print::print_module;
use irgc_front::ir::Module;
use irgc_test_support::{normalise_ir, normalise_ptx};
use std::fmt::Write as _;

/// The PTX target snapshots are taken for (the oldest the backend supports, so they hold no newer features).
pub const SNAPSHOT_ARCH: &str = "sm_80";

/// A file the front end accepted, after every stage that needs no backend.
pub struct Compiled {
    pub ast: String,
    pub front: Module,
    /// The IR after each optimizer pass, in pass order.
    pub after_pass: Vec<(&'static str, String)>,
    /// The module the backends get (after every pass).
    pub module: Module,
}

/// What the front end made of a file.
pub enum Outcome {
    Compiled(Box<Compiled>),
    /// Refused: the rendered (colourless) diagnostics, then each one's primary `file:line:col: message`.
    Refused(String),
}

/// Compiles `text` under `name` (the name diagnostics show) through the front end and every optimizer pass.
pub fn compile(name: &str, text: &str) -> Outcome {
    let c = match std::panic::catch_unwind(|| irgc_front::compile_source(name, text)) {
        Ok(c) => c,
        Err(e) => {
            let msg = e.downcast_ref::<String>().map(String::as_str).or(e.downcast_ref::<&str>().copied());
            panic!("the front end panicked on {name}: {}", msg.unwrap_or("(no message)"))
        }
    };
    let Some(front) = c.module.clone().filter(|_| !c.has_errors()) else {
        let mut out = c.sources.render(&c.diagnostics, false);
        out.push_str("--- primary locations ---\n");
        for d in &c.diagnostics {
            let (line, col) = c.sources.line_col(d.primary.0.file, d.primary.0.start);
            let _ = writeln!(out, "{}:{line}:{col}: {}", c.sources.name(d.primary.0.file), d.message);
        }
        return Outcome::Refused(out);
    };
    let mut module = front.clone();
    let all: std::collections::BTreeSet<String> = irgc_opt::PASSES.iter().map(|p| p.name.to_string()).collect();
    let options = irgc_opt::Options { validate: true, print_after: all, ..irgc_opt::Options::default() };
    let report = irgc_opt::run(&mut module, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let after_pass = report.passes.into_iter().map(|p| (p.name, p.printed.unwrap_or_default())).collect();
    let ast = irgc_front::syntax::print::print_ast(&c.files[0].1);
    Outcome::Compiled(Box::new(Compiled { ast, front, after_pass, module }))
}

/// One stage of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The syntax tree as parsed.
    Ast,
    /// The IR as the front end made it.
    Ir,
    /// The IR after the named optimizer pass (and every pass before it).
    AfterPass(&'static str),
    /// The runtime artifact (JSON), from the host backend.
    Artifact,
    /// The LLVM IR as generated, before LLVM's optimisation.
    Llvm,
    /// The PTX, without its version banner.
    Ptx,
}

/// Every stage, in pipeline order: one `AfterPass` per optimizer pass.
pub fn stages() -> Vec<Stage> {
    let mut s = vec![Stage::Ast, Stage::Ir];
    s.extend(irgc_opt::PASSES.iter().map(|p| Stage::AfterPass(p.name)));
    s.extend([Stage::Artifact, Stage::Llvm, Stage::Ptx]);
    s
}

impl Stage {
    /// The snapshot-name prefix: `ast`, `ir`, `ir-after-outline`, `artifact`, `llvm`, `ptx`.
    pub fn name(self) -> String {
        match self {
            Stage::Ast => "ast".into(),
            Stage::Ir => "ir".into(),
            Stage::AfterPass(p) => format!("ir-after-{p}"),
            Stage::Artifact => "artifact".into(),
            Stage::Llvm => "llvm".into(),
            Stage::Ptx => "ptx".into(),
        }
    }

    /// This stage's text for a compiled file (an `Err` names the backend's refusal).
    pub fn text(self, c: &Compiled, ptx: &mut Option<irgc_backend_ptx::PtxOutput>) -> Result<String, String> {
        let mut ptx_out = || -> Result<irgc_backend_ptx::PtxOutput, String> {
            if ptx.is_none() {
                let options = irgc_backend_ptx::Options { arch: SNAPSHOT_ARCH.into(), check_bounds: false };
                *ptx = Some(irgc_backend_ptx::compile(&c.module, &options).map_err(|e| e.to_string())?);
            }
            Ok(ptx.clone().expect("just compiled"))
        };
        Ok(match self {
            Stage::Ast => c.ast.clone(),
            Stage::Ir => print_module(&c.front),
            Stage::AfterPass(p) => {
                c.after_pass.iter().find(|(n, _)| *n == p).map(|(_, t)| t.clone()).unwrap_or_default()
            }
            Stage::Artifact => {
                serde_json::to_string_pretty(&irgc_backend_host::lower(&c.module)).map_err(|e| e.to_string())? + "\n"
            }
            Stage::Llvm => normalise_ir(&ptx_out()?.llvm_ir),
            Stage::Ptx => normalise_ptx(&ptx_out()?.ptx),
        })
    }
}
