//! Diagnostics: plain data (a message, spans, labels, notes) produced by every stage, rendered in one place.
//!
//! Stages never print. They return `Vec<Diagnostic>`; the CLI renders them against the [`SourceMap`] with
//! codespan-reporting, so the same error can be shown to a terminal, captured in a snapshot test, or turned into
//! JSON.

use crate::span::{FileId, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where the problem is, and a short label for that place.
    pub primary: (Span, String),
    /// Related places, e.g. an earlier definition.
    pub secondary: Vec<(Span, String)>,
    /// Extra lines: hints, what would be right.
    pub notes: Vec<String>,
    /// A problem that a syntax error elsewhere can cause (a name the parser had to drop, a missing plan): such
    /// diagnostics are withheld when the file has syntax errors, so every reported error is a real one.
    pub may_cascade: bool,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            primary: (span, String::new()),
            secondary: Vec::new(),
            notes: Vec::new(),
            may_cascade: false,
        }
    }

    /// Marks the diagnostic as one a syntax error elsewhere may have caused (see [`Diagnostic::may_cascade`]).
    pub fn cascading(mut self) -> Self {
        self.may_cascade = true;
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.primary.1 = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The source files of one compilation: the program and every module it imports.
#[derive(Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
    names: Vec<String>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, name: impl Into<String>, source: impl Into<String>) -> FileId {
        let name = name.into();
        self.names.push(name.clone());
        FileId(self.files.add(name, source.into()) as u32)
    }

    pub fn source(&self, file: FileId) -> &str {
        self.files.get(file.0 as usize).map(|f| f.source().as_str()).unwrap_or("")
    }

    pub fn name(&self, file: FileId) -> &str {
        self.names.get(file.0 as usize).map(String::as_str).unwrap_or("<unknown>")
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let src = self.source(file);
        let offset = (offset as usize).min(src.len());
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
        (line, col)
    }

    /// Renders diagnostics as text, with source context; colour only when asked for.
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        let mut out = termcolor::Buffer::no_color();
        let mut colored = termcolor::Buffer::ansi();
        let buf = if color { &mut colored } else { &mut out };
        let config = term::Config::default();
        for d in diags {
            let _ = term::emit_to_write_style(buf, &config, &self.files, &self.to_codespan(d));
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }

    fn to_codespan(&self, d: &Diagnostic) -> CsDiagnostic<usize> {
        let base = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        };
        let mut labels =
            vec![Label::primary(d.primary.0.file.0 as usize, d.primary.0.range()).with_message(&d.primary.1)];
        for (span, msg) in &d.secondary {
            labels.push(Label::secondary(span.file.0 as usize, span.range()).with_message(msg));
        }
        base.with_message(&d.message).with_labels(labels).with_notes(d.notes.clone())
    }
}
