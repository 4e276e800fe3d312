//! Galois binary CSR graphs (`.gr`, also `.sgr`), little-endian:
//!
//! ```text
//! u64 version (1 or 2)   u64 edge-data size (0, 4 or 8)   u64 nodes   u64 edges
//! u64 out_idx[nodes]     (END offset of every node's edges)
//! version 1: u32 dst[edges], then 4 bytes of padding if edges is odd; version 2: u64 dst[edges]
//! edge data: u32 per edge (size 4) or i64 per edge (size 8)
//! ```
//!
//! The file shares the `.gr` suffix with text DIMACS and PACE files, so it is told apart by content: text files
//! start with a letter, a Galois file with the 8 bytes of version 1 or 2 followed by a plausible edge-data size.
//! Arrays are read in chunks and only grow as data really arrives, so a header promising 2^40 edges in a tiny file
//! ends in a "truncated" error rather than an attempt to allocate terabytes.

use std::io::Read;

use crate::csr::{EdgeList, NodeLabels, Weights};
use crate::error::LoadError;
use crate::load::edges::{reserve_hint, Parsed};
use crate::load::lines::Lines;

/// The header's size in bytes.
pub(crate) const HEADER_LEN: usize = 32;

fn word(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i * 8..i * 8 + 8]);
    u64::from_le_bytes(w)
}

/// Whether `head` (the first bytes of a decompressed input) looks like a Galois binary graph.
pub(crate) fn sniff(head: &[u8]) -> bool {
    head.len() >= HEADER_LEN && matches!(word(head, 0), 1 | 2) && matches!(word(head, 1), 0 | 4 | 8)
}

/// Reads fixed-size little-endian items in chunks, turning a short read into a "truncated" message.
struct Reader<'l, 'a> {
    lines: &'l mut Lines<'a>,
    name: String,
    header: String,
}

impl Reader<'_, '_> {
    /// Reads `count` items of `N` bytes each, decoding each with `decode`.
    fn items<const N: usize, T>(
        &mut self,
        count: u64,
        what: &str,
        decode: impl Fn([u8; N]) -> T,
    ) -> Result<Vec<T>, LoadError> {
        const CHUNK_ITEMS: u64 = 1 << 16;
        let mut out = Vec::with_capacity(reserve_hint(count));
        let mut buf = vec![0u8; (CHUNK_ITEMS as usize) * N];
        let mut left = count;
        while left > 0 {
            let k = left.min(CHUNK_ITEMS) as usize;
            self.fill(&mut buf[..k * N], what)?;
            out.extend(buf[..k * N].chunks_exact(N).map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                decode(a)
            }));
            left -= k as u64;
        }
        Ok(out)
    }

    fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<(), LoadError> {
        let mut got = 0;
        while got < buf.len() {
            match self.lines.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(LoadError::invalid(
                        &self.name,
                        format!("truncated: the file ends inside the {what} ({})", self.header),
                    ))
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.lines.read_error(e)),
            }
        }
        Ok(())
    }
}

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    let mut head = [0u8; HEADER_LEN];
    let mut r = Reader { lines, name: name.clone(), header: "the header".into() };
    r.fill(&mut head, "header")?;
    let (version, data_size, n, m) = (word(&head, 0), word(&head, 1), word(&head, 2), word(&head, 3));
    if !matches!(version, 1 | 2) {
        return Err(LoadError::invalid(
            &name,
            format!("not a Galois binary graph: the first 8 bytes should be version 1 or 2, found {version:#018x}"),
        ));
    }
    if !matches!(data_size, 0 | 4 | 8) {
        return Err(LoadError::invalid(&name, format!("unsupported edge-data size {data_size}; expected 0, 4 or 8")));
    }
    let n = u32::try_from(n).map_err(|_| {
        LoadError::invalid(
            &name,
            format!("header says {n} nodes, more than the {} that 32-bit node ids allow", u32::MAX),
        )
    })?;
    r.header = format!("header: {n} nodes, {m} edges");

    let ends = r.items::<8, _>(n as u64, "edge offsets", u64::from_le_bytes)?;
    let dst: Vec<u64> = if version == 1 {
        let d = r.items::<4, _>(m, "edge destinations", |b| u32::from_le_bytes(b) as u64)?;
        if m % 2 == 1 {
            r.fill(&mut [0u8; 4], "padding after the edge destinations")?;
        }
        d
    } else {
        r.items::<8, _>(m, "edge destinations", u64::from_le_bytes)?
    };
    let weights = match data_size {
        // Kept at the file's width: a program reading `u32` weights then uses this array as it is.
        4 => Some(Weights::U32(r.items::<4, _>(m, "edge data", u32::from_le_bytes)?.into())),
        8 => Some(Weights::Int(r.items::<8, _>(m, "edge data", i64::from_le_bytes)?.into())),
        _ => None,
    };
    let mut extra = [0u8; 1];
    if r.lines.read(&mut extra).map_err(|e| r.lines.read_error(e))? > 0 {
        return Err(LoadError::invalid(&name, "unexpected bytes after the edge data"));
    }

    let mut src = Vec::with_capacity(dst.len());
    let mut prev = 0u64;
    for (v, &end) in ends.iter().enumerate() {
        if end < prev {
            return Err(LoadError::invalid(
                &name,
                format!(
                    "edge offset of node {v} is {end}, less than the previous node's {prev}; offsets must not decrease"
                ),
            ));
        }
        if end > m {
            return Err(LoadError::invalid(
                &name,
                format!("edge offset of node {v} is {end}, beyond the {m} edges the header says"),
            ));
        }
        src.resize(end as usize, v as u32);
        prev = end;
    }
    if prev != m {
        return Err(LoadError::invalid(&name, format!("the last edge offset is {prev} but the header says {m} edges")));
    }
    let dst = dst
        .into_iter()
        .enumerate()
        .map(|(e, d)| {
            u32::try_from(d)
                .ok()
                .filter(|&d| d < n)
                .ok_or_else(|| LoadError::invalid(&name, format!("edge {e} points to node {d}, outside 0..{n}")))
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let mut edges = EdgeList::new(n);
    edges.src = src;
    edges.dst = dst;
    edges.weights = weights;
    edges.labels = NodeLabels::Offset(0);
    Ok(Parsed { edges })
}
