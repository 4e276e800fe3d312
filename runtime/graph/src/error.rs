//! The errors of loading, writing and caching graphs.
//!
//! Every message names the file it is about (by file name, so messages stay short and stable across machines),
//! the line where there is one, and what was wrong, so a user can fix the input without a debugger. I/O errors
//! carry the full path instead, since "which directory" is usually the question there.

use std::path::{Path, PathBuf};

/// Why a graph could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The operating system refused to open or read a file.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A line of a text file is malformed.
    #[error("{file}:{line}: {msg}")]
    Parse { file: String, line: u64, msg: String },
    /// The file as a whole is wrong: empty, truncated, counts that disagree with its header, a corrupt
    /// compressed stream, an unknown format.
    #[error("{file}: {msg}")]
    Invalid { file: String, msg: String },
    /// The load options themselves are inconsistent (e.g. an empty weight range).
    #[error("invalid load options: {0}")]
    Options(String),
}

impl LoadError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        LoadError::Io { path: path.to_path_buf(), source }
    }

    pub(crate) fn parse(file: &str, line: u64, msg: impl Into<String>) -> Self {
        LoadError::Parse { file: file.to_string(), line, msg: msg.into() }
    }

    pub(crate) fn invalid(file: &str, msg: impl Into<String>) -> Self {
        LoadError::Invalid { file: file.to_string(), msg: msg.into() }
    }
}

/// Why a graph could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The graph cannot be expressed in the requested format (e.g. float weights in METIS).
    #[error("{file}: {msg}")]
    Unsupported { file: String, msg: String },
}

/// The name used for a path in messages: its last component, or the whole path when it has none.
pub(crate) fn display_name(path: &Path) -> String {
    match path.file_name() {
        Some(n) => n.to_string_lossy().into_owned(),
        None => path.display().to_string(),
    }
}

/// A token quoted for an error message: lossy UTF-8, shortened so a binary blob cannot flood the terminal.
pub(crate) fn quote(tok: &[u8]) -> String {
    const MAX: usize = 24;
    let shown = &tok[..tok.len().min(MAX)];
    if let Err(e) = std::str::from_utf8(shown) {
        // Invalid UTF-8 other than a character cut by the shortening: this is not text.
        if e.error_len().is_some() {
            return "non-text bytes (is this a binary file?)".to_string();
        }
    }
    let s = String::from_utf8_lossy(shown);
    let s: String = s.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    if tok.len() > MAX {
        format!("'{s}...'")
    } else {
        format!("'{s}'")
    }
}
