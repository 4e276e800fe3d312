//! The front end's entry point: read a program, load the modules it imports, parse, analyse, lower, validate.
//!
//! The standard library (`import std.NAME;`) is compiled into the binary from `stdlib/*.irg`, so an `irgc` binary
//! carried to another machine needs no files beside it.

use crate::diag::{Diagnostic, SourceMap};
use crate::ir::Module;
use crate::sema::{self, ParsedFile};
use crate::span::{FileId, Span};
use crate::syntax::{self, ast};

/// The modules of `stdlib/`, by name.
pub const STDLIB: &[(&str, &str)] = &[
    ("unionfind", include_str!("../../../stdlib/unionfind.irg")),
    ("coloring", include_str!("../../../stdlib/coloring.irg")),
    ("random", include_str!("../../../stdlib/random.irg")),
];

/// Everything the front end produced for one program.
pub struct Compilation {
    pub sources: SourceMap,
    /// Every parsed file, the program first.
    pub files: Vec<(FileId, ast::SourceFile)>,
    /// The lowered, validated module: present only when there were no errors.
    pub module: Option<Module>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses and lowers a program given as text; `name` is used in diagnostics and as the module name's source.
pub fn compile_source(name: &str, source: &str) -> Compilation {
    compile(name, source, false)
}

/// Checks a module file (what `import std.NAME;` loads, e.g. `stdlib/*.irg`) given as text, on its own: it is
/// parsed, its imports loaded, and its functions and constants checked and lowered exactly as when a program
/// imports it; a module may hold only functions, constants and imports, and needs no `graph` or `plan`. The
/// lowered module (functions only) is returned when there are no errors. `name` is used in diagnostics and as the
/// module name's source.
pub fn check_module_source(name: &str, source: &str) -> Compilation {
    compile(name, source, true)
}

/// Whether `source` reads as a module rather than a program: it parses, and holds at least one item and only
/// functions, constants and imports (no `graph`, arrays, kernels or `plan`). A tool that takes either kind of file
/// (`irgc check`) can use it to choose between [`check_module_source`] and [`compile_source`].
pub fn looks_like_module(source: &str) -> bool {
    let (ast, diags) = syntax::parse(FileId(0), source);
    diags.is_empty()
        && !ast.items.is_empty()
        && ast.items.iter().all(|item| {
            matches!(item.kind, ast::ItemKind::Function(_) | ast::ItemKind::Const { .. } | ast::ItemKind::Import(_))
        })
}

/// The front end: `source` as a program, or (`as_module`) as a module checked on its own.
fn compile(name: &str, source: &str, as_module: bool) -> Compilation {
    let mut sources = SourceMap::new();
    let main = sources.add(name, source);
    let mut diagnostics = Vec::new();
    let (ast, diags) = syntax::parse(main, source);
    diagnostics.extend(diags);
    let mut files = vec![(main, ast)];
    let mut loaded: Vec<String> = Vec::new();
    // Breadth-first over imports; each module is loaded once.
    let mut i = 0;
    while i < files.len() {
        let imports: Vec<(Vec<String>, Span)> = files[i]
            .1
            .items
            .iter()
            .filter_map(|item| match &item.kind {
                ast::ItemKind::Import(path) => Some((path.iter().map(|p| p.node.clone()).collect(), item.span)),
                _ => None,
            })
            .collect();
        for (path, span) in imports {
            let dotted = path.join(".");
            if path.len() != 2 || path[0] != "std" {
                diagnostics.push(
                    Diagnostic::error(span, format!("cannot import `{dotted}`"))
                        .label("unknown module")
                        .note("modules come from the standard library: `import std.NAME;`"),
                );
                continue;
            }
            if loaded.contains(&path[1]) {
                continue;
            }
            match STDLIB.iter().find(|(n, _)| *n == path[1]) {
                Some((n, text)) => {
                    loaded.push(n.to_string());
                    let id = sources.add(format!("std/{n}.irg"), *text);
                    let (ast, diags) = syntax::parse(id, text);
                    diagnostics.extend(diags);
                    files.push((id, ast));
                }
                None => {
                    let known: Vec<&str> = STDLIB.iter().map(|(n, _)| *n).collect();
                    diagnostics.push(
                        Diagnostic::error(span, format!("no module `{dotted}`"))
                            .label("not in the standard library")
                            .note(format!("standard modules: {}", known.join(", "))),
                    );
                }
            }
        }
        i += 1;
    }
    let module_name = std::path::Path::new(name).file_stem().and_then(|s| s.to_str()).unwrap_or("program").to_string();
    let parsed: Vec<ParsedFile<'_>> = files
        .iter()
        .enumerate()
        .map(|(i, (id, ast))| ParsedFile { file: *id, ast, text: sources.source(*id), is_main: i == 0 && !as_module })
        .collect();
    // After syntax errors the tree has holes; semantic analysis still runs (so independent type errors are
    // reported too) but its diagnostics that a hole could explain ("cannot find `k`" for a kernel the parser had to
    // drop) are withheld.
    let syntax_errors = diagnostics.iter().any(Diagnostic::is_error);
    let (module, diags) = sema::lower(&module_name, &parsed);
    diagnostics.extend(diags.into_iter().filter(|d| !(syntax_errors && d.may_cascade)));
    let module = if syntax_errors { None } else { module };
    Compilation { sources, files, module, diagnostics }
}

/// Reads and compiles a program file.
pub fn compile_file(path: &std::path::Path) -> std::io::Result<Compilation> {
    Ok(compile_source(&path.display().to_string(), &read_source(path)?))
}

/// A source file's text; not UTF-8 is an error (`InvalidData`), as for every file the front end reads.
pub fn read_source(path: &std::path::Path) -> std::io::Result<String> {
    let mut text = String::from_utf8(std::fs::read(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text ({e})")))?;
    // A byte-order mark some editors write at the start is no part of the program.
    if text.starts_with('\u{feff}') {
        text.replace_range(..3, "   ");
    }
    Ok(text)
}
