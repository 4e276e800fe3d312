//! Galois binary writer (version 1; see `load/galois.rs` for the layout). Edge data is 4 bytes when every weight
//! fits in `u32`, else 8 bytes (`i64`); the format has no float edge data, so float weights are refused.

use std::io::Write;

use super::Fail;
use crate::csr::{Csr, Weights};

pub(crate) fn write(g: &Csr, out: &mut dyn Write) -> Result<(), Fail> {
    let ints = match &g.weights {
        None => None,
        Some(w @ (Weights::Int(_) | Weights::U32(_))) => w.ints(),
        Some(Weights::Float(_)) => {
            return Err(Fail::Unsupported(
                "Galois binary edge data must be integers; this graph has float weights".into(),
            ))
        }
    };
    let narrow = ints.as_ref().is_some_and(|w| w.iter().all(|&x| u32::try_from(x).is_ok()));
    let data_size: u64 = match ints {
        None => 0,
        Some(_) if narrow => 4,
        Some(_) => 8,
    };
    for word in [1, data_size, g.num_nodes() as u64, g.num_edges()] {
        out.write_all(&word.to_le_bytes())?;
    }
    let mut buf = Vec::with_capacity(1 << 16);
    // Batches small writes; `out` is buffered too, but one call per 64 KiB keeps dynamic dispatch off the hot loop.
    let flush = |buf: &mut Vec<u8>, out: &mut dyn Write, force: bool| -> std::io::Result<()> {
        if force || buf.len() >= 1 << 16 {
            out.write_all(buf)?;
            buf.clear();
        }
        Ok(())
    };
    for &end in &g.row_start[1..] {
        buf.extend_from_slice(&end.to_le_bytes());
        flush(&mut buf, out, false)?;
    }
    for &d in &g.col {
        buf.extend_from_slice(&d.to_le_bytes());
        flush(&mut buf, out, false)?;
    }
    if g.col.len() % 2 == 1 {
        buf.extend_from_slice(&[0; 4]);
    }
    if let Some(w) = ints {
        for &x in w.iter() {
            if narrow {
                buf.extend_from_slice(&(x as u32).to_le_bytes());
            } else {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            flush(&mut buf, out, false)?;
        }
    }
    flush(&mut buf, out, true)?;
    Ok(())
}
