//! LDBC Graphalytics graphs: a pair of files `x.v` (one vertex id per line; further columns are ignored) and
//! `x.e` (`u v [w]` per line, directed, in the ids of `x.v`). Nodes are numbered in the order of `x.v` and the
//! written ids kept as explicit labels, so results can be reported in the user's ids.
//!
//! Given either file, the other is found beside it with the same compression suffix: `p2p-31.e.xz` pairs with
//! `p2p-31.v.xz`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::csr::{EdgeList, NodeLabels};
use crate::error::{display_name, LoadError};
use crate::load::edges::{Parsed, WeightColumn};
use crate::load::input::{Input, Progress};
use crate::load::lines::{At, Lines};

/// Compression suffixes kept when swapping `.v` and `.e`.
const COMPRESSION_SUFFIXES: [&str; 4] = [".xz", ".gz", ".bz2", ".bz"];

/// The `(x.v, x.e)` pair for either member of it.
pub(crate) fn pair_paths(path: &Path) -> Result<(PathBuf, PathBuf), LoadError> {
    let name = display_name(path);
    let suffix = COMPRESSION_SUFFIXES.iter().find(|s| name.ends_with(*s)).copied().unwrap_or("");
    let stem = &name[..name.len() - suffix.len()];
    let Some(base) = stem.strip_suffix(".v").or_else(|| stem.strip_suffix(".e")) else {
        return Err(LoadError::invalid(
            &name,
            "an LDBC graph is a pair of files 'x.v' and 'x.e' (optionally compressed); this name ends in neither",
        ));
    };
    let v = path.with_file_name(format!("{base}.v{suffix}"));
    let e = path.with_file_name(format!("{base}.e{suffix}"));
    Ok((v, e))
}

/// Maps written vertex ids to node numbers; arithmetic when `x.v` lists consecutive ids in order (the common case).
enum IdMap {
    Range { first: u64, len: u64 },
    Table(HashMap<u64, u32>),
}

impl IdMap {
    fn get(&self, id: u64) -> Option<u32> {
        match self {
            IdMap::Range { first, len } => id.checked_sub(*first).filter(|i| i < len).map(|i| i as u32),
            IdMap::Table(t) => t.get(&id).copied(),
        }
    }
}

pub(crate) fn load(path: &Path, progress: &mut Progress<'_>) -> Result<Parsed, LoadError> {
    let (v_path, e_path) = pair_paths(path)?;
    let ids = read_vertices(&v_path, progress)?;
    let v_name = display_name(&v_path);
    let consecutive = ids.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
    let map = match ids.first() {
        Some(&first) if consecutive => IdMap::Range { first, len: ids.len() as u64 },
        _ => {
            let mut t = HashMap::with_capacity(ids.len());
            for (i, &id) in ids.iter().enumerate() {
                if t.insert(id, i as u32).is_some() {
                    return Err(LoadError::invalid(&v_name, format!("vertex id {id} is listed twice")));
                }
            }
            IdMap::Table(t)
        }
    };

    let mut lines = Lines::new(Input::open(&e_path, progress)?);
    let name = lines.name().to_string();
    let mut edges = EdgeList::new(ids.len() as u32);
    let mut weights = WeightColumn::default();
    let mut weighted: Option<bool> = None;
    while let Some(line) = lines.next_line()? {
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let mut node = |what: &str| -> Result<u32, LoadError> {
            let id = at.id(f.next(), what)?;
            map.get(id).ok_or_else(|| at.err(format!("node id {id} is not listed in {v_name}")))
        };
        let u = node("two node ids")?;
        let v = node("two node ids")?;
        let w = f.next();
        at.end(f, "'from to [weight]'")?;
        match (*weighted.get_or_insert(w.is_some()), w) {
            (true, None) => {
                return Err(at.err("expected an edge weight like the lines before, found the end of the line"))
            }
            (false, Some(_)) => {
                return Err(
                    at.err("found an edge weight, but earlier lines have none; every line needs the same fields")
                )
            }
            (true, Some(_)) => weights.push(at, w)?,
            (false, None) => {}
        }
        edges.src.push(u);
        edges.dst.push(v);
    }
    if weighted == Some(true) {
        edges.weights = Some(weights.finish());
    }
    edges.labels = NodeLabels::Explicit(ids);
    Ok(Parsed { edges })
}

/// The ids of `x.v`, in file order.
fn read_vertices(path: &Path, progress: &mut Progress<'_>) -> Result<Vec<u64>, LoadError> {
    let mut lines = Lines::new(Input::open(path, progress)?);
    let name = lines.name().to_string();
    let mut ids = Vec::new();
    while let Some(line) = lines.next_line()? {
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        ids.push(at.id(line.fields().next(), "a vertex id")?);
        if ids.len() > u32::MAX as usize {
            return Err(at.err(format!("more than {} vertices; node ids are 32-bit", u32::MAX)));
        }
    }
    Ok(ids)
}
