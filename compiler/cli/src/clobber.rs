//! Output paths may not destroy inputs or each other: `--out`, `--stats-out`, `--plot` and `compile -o` are
//! refused when they name one of the command's inputs (the program, the graph file, an LDBC graph's companion
//! `.v`/`.e` file) or the same file as another output. Files are compared by device and inode when they exist
//! (so hard links, symbolic links and other spellings are caught), else by their resolved path.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// A file's identity: `(device, inode)` if it exists, else its path with the directory resolved.
#[derive(PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path) -> Identity {
    if let Ok(m) = std::fs::metadata(path) {
        return Identity::Inode(m.dev(), m.ino());
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    Identity::Path(dir.join(path.file_name().unwrap_or_default()))
}

/// The files a graph argument reads: the file itself, and for an LDBC `.v`/`.e` file (compressed or not) its
/// companion.
pub fn graph_files(graph: &str) -> Vec<PathBuf> {
    if graph.starts_with("gen:") {
        return Vec::new();
    }
    let path = PathBuf::from(graph);
    let mut files = vec![path.clone()];
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for (ext, other) in [(".e", ".v"), (".v", ".e")] {
        for z in ["", ".gz", ".xz", ".bz2", ".bz", ".zst", ".lz4"] {
            if let Some(stem) = name.strip_suffix(&format!("{ext}{z}")) {
                files.push(path.with_file_name(format!("{stem}{other}{z}")));
            }
        }
    }
    files
}

/// Refuses `outputs` (`(flag, path)`; `-` is standard output and never clashes) that name an input or each other.
pub fn check(outputs: &[(&str, &Path)], inputs: &[PathBuf]) -> Result<()> {
    let outputs: Vec<_> = outputs.iter().filter(|(_, p)| p.as_os_str() != "-").collect();
    for (k, (flag, out)) in outputs.iter().enumerate() {
        let id = identity(out);
        if let Some(input) = inputs.iter().find(|i| identity(i) == id) {
            bail!(
                "{flag} {} is one of the command's inputs ({}); writing there would destroy it",
                out.display(),
                input.display()
            );
        }
        if let Some((other, _)) = outputs[..k].iter().find(|(_, p)| identity(p) == id) {
            bail!("{flag} {} is the same file as {other}; give each output its own file", out.display());
        }
    }
    Ok(())
}
