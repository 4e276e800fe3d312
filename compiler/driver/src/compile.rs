//! Source to a runnable program: the front end, the optimizer with its default passes, and the host lowering,
//! with diagnostics rendered as the CLI renders them (without colour), for callers that show text, not spans.

use std::path::Path;

use irgc_artifact::Artifact;
use irgc_front::ir::Module;

/// A program ready for a backend: the optimized IR (what the CPU and PTX backends compile) and its artifact.
pub struct Compiled {
    pub module: Module,
    pub artifact: Artifact,
    /// Rendered warnings, empty when there were none.
    pub warnings: String,
    /// The program's text (and its modules'), for diagnostics at run time (a bad index, `--check-bounds`).
    pub sources: irgc_front::SourceMap,
}

/// Why a program did not compile, as text for the user.
#[derive(Debug)]
pub enum CompileError {
    /// The program has errors: the rendered diagnostics (warnings included), as `irgc check --color never`
    /// prints them.
    Diagnostics(String),
    /// The source file could not be read.
    Read(String),
    /// An optimizer pass failed (a compiler bug: the message names the pass).
    Optimizer(String),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Diagnostics(text) => f.write_str(text.trim_end()),
            CompileError::Read(msg) | CompileError::Optimizer(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for CompileError {}

/// Compiles the program in `text`; `name` is the file name diagnostics show.
pub fn compile_source(name: &str, text: &str, options: &irgc_opt::Options) -> Result<Compiled, CompileError> {
    let c = irgc_front::compile_source(name, text);
    let rendered = if c.diagnostics.is_empty() { String::new() } else { c.sources.render(&c.diagnostics, false) };
    let module = match (&c.module, c.has_errors()) {
        (Some(m), false) => m,
        _ => return Err(CompileError::Diagnostics(rendered)),
    };
    let mut module = module.clone();
    irgc_opt::run(&mut module, options).map_err(|e| CompileError::Optimizer(e.to_string()))?;
    let artifact = crate::backend::lower(&module);
    Ok(Compiled { module, artifact, warnings: rendered, sources: c.sources })
}

/// Compiles the program in the file at `path` (read as `irgc check` reads it: UTF-8 text).
pub fn compile_file(path: &Path, options: &irgc_opt::Options) -> Result<Compiled, CompileError> {
    let text = irgc_front::read_source(path)
        .map_err(|e| CompileError::Read(format!("cannot read {}: {e}", path.display())))?;
    compile_source(&path.display().to_string(), &text, options)
}

/// A bad index a bounds-checked kernel found (`RunError::OutOfBounds`), rendered as a diagnostic at the
/// index's source line (as compile errors are); `None` for any other error. `module` and `sources` are the
/// compiled program's.
pub fn render_out_of_bounds(
    e: &irgc_runtime::RunError,
    module: &Module,
    sources: &irgc_front::SourceMap,
    color: bool,
) -> Option<String> {
    let irgc_runtime::RunError::OutOfBounds { kernel, site, index, bound } = e else { return None };
    let at = irgc_front::bounds::describe(module, *site)?;
    let what = match at.array.as_str() {
        "G.src" | "G.dst" | "G.weight" => format!("`{}` of edge {index}, but the graph has {bound} edges", at.array),
        q if q.starts_with("G.") => format!("`{q}` of node {index}, but the graph has {bound} nodes"),
        array => format!("index {index} into `{array}`, whose length is {bound}"),
    };
    let d = irgc_front::Diagnostic::error(at.span, format!("out-of-bounds access in kernel `{kernel}`: {what}"))
        .label(format!("index {index} >= {bound}"))
        .note(format!("in {}; the run stopped at the first bad index of this launch", at.body));
    Some(sources.render(&[d], color))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_come_back_rendered_without_colour() {
        let err = match compile_source("bad.irg", "graph G;\nplan { x = ; }\n", &irgc_opt::Options::default()) {
            Err(e) => e,
            Ok(_) => panic!("a syntax error compiled"),
        };
        let text = err.to_string();
        assert!(text.contains("bad.irg:2:"), "{text}");
        assert!(text.contains("error"), "{text}");
        assert!(!text.contains('\u{1b}'), "colour codes in {text:?}");
    }

    #[test]
    fn a_program_compiles_to_its_artifact() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs/bfs/bfs_worklist.irg");
        let c = compile_file(&path, &irgc_opt::Options::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.artifact.params.len(), 1);
        assert_eq!(c.artifact.params[0].name, "source");
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn a_missing_file_is_a_read_error() {
        let r = compile_file(Path::new("/nonexistent/x.irg"), &irgc_opt::Options::default());
        assert!(matches!(r, Err(CompileError::Read(m)) if m.contains("/nonexistent/x.irg")));
    }
}
