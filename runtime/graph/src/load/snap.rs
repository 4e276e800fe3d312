//! Plain edge lists (SNAP `.txt`, `.el`, `.wel`, ...): `#` or `%` comment lines, then `u v [w]` per line,
//! separated by tabs or spaces, directed as written.
//!
//! Ids are arbitrary 64-bit numbers, numbered as `ids.rs` describes.
//!
//! Header rule: some files (e.g. SNAP's email-Enron) start with a line `N M`. The first data line is taken as such a
//! header when it has exactly two numbers, `M` equals the number of data lines after it, and no id after it exceeds
//! `N`; the header is then dropped (it only announces counts, and `N` adds isolated nodes above the largest id). A real first edge matches this only in contrived
//! files (e.g. `5 1` followed by exactly one edge between ids at most 5). A header announcing no edges is not
//! recognised (a lone line `5 0` is the edge 5 -> 0).

use crate::error::LoadError;
use crate::load::edges::Parsed;
use crate::load::ids::RawEdges;
use crate::load::lines::{At, Lines};

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    // The first data line is kept aside until we know whether it is a header.
    let mut first: Option<(u64, u64, u64, Option<Vec<u8>>)> = None;
    let mut raw = RawEdges::new();
    while let Some(line) = lines.next_line()? {
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let u = at.id(f.next(), "two node ids")?;
        let v = at.id(f.next(), "two node ids")?;
        let w = f.next();
        at.end(f, "'from to [weight]'")?;
        if first.is_none() {
            first = Some((line.no, u, v, w.map(<[u8]>::to_vec)));
            continue;
        }
        raw.push(at, u, v, w)?;
    }
    let Some((first_no, a, b, first_w)) = first else {
        return Err(LoadError::invalid(&name, "no edges (only comments and blank lines)"));
    };
    let is_header = first_w.is_none() && b > 0 && b == raw.src.len() as u64 && raw.max_id <= a;
    if !is_header {
        let at = At { file: &name, line: first_no };
        raw.push_front(at, a, b, first_w.as_deref())?;
    }
    let labels_hint = if is_header { Some(a) } else { None };
    Ok(Parsed { edges: raw.into_edges(&name, labels_hint)? })
}

impl RawEdges {
    fn push(&mut self, at: At<'_>, u: u64, v: u64, w: Option<&[u8]>) -> Result<(), LoadError> {
        let weighted = *self.weighted.get_or_insert(w.is_some());
        match (weighted, w) {
            (true, None) => {
                return Err(at.err("expected an edge weight like the lines before, found the end of the line"))
            }
            (false, Some(_)) => {
                return Err(
                    at.err("found an edge weight, but earlier lines have none; every line needs the same fields")
                )
            }
            (true, Some(_)) => self.weights.push(at, w)?,
            (false, None) => {}
        }
        self.push_ids(u, v);
        Ok(())
    }

    /// Puts the first data line back in front once it is known not to be a header.
    fn push_front(&mut self, at: At<'_>, u: u64, v: u64, w: Option<&[u8]>) -> Result<(), LoadError> {
        let rest = std::mem::replace(self, RawEdges::new());
        let follower = rest.weighted;
        self.push(at, u, v, w)?;
        if let Some(f) = follower {
            if Some(f) != self.weighted {
                let msg = if f {
                    "has no edge weight, but the lines after it have one"
                } else {
                    "has an edge weight, but the lines after it have none"
                };
                return Err(at.err(format!("this line {msg}; every line needs the same fields")));
            }
        }
        self.src.extend_from_slice(&rest.src);
        self.dst.extend_from_slice(&rest.dst);
        self.max_id = self.max_id.max(rest.max_id);
        if rest.weighted == Some(true) {
            self.weights.append(rest.weights);
        }
        Ok(())
    }
}
