//! The device copy of the kernel context: which slots to upload before a launch.
//!
//! The interpreter keeps the slot table on the host and rewrites a few slots between launches (arguments, worklist
//! pointers and counts). Kernels read the table from device memory, so before each launch the slots that changed
//! since the last upload are copied over: one copy of the span from the first changed slot to the last (a table is
//! a few hundred bytes, so one small copy beats several tiny ones). The reduction slot is special: the kernel
//! writes it, so the host's idea of its contents is never right after a reducing launch; it is sent with every
//! reducing launch, set to the reduction's identity.

/// What the device's table holds, as far as the host knows.
#[derive(Clone, Debug)]
pub struct SlotTable {
    shadow: Vec<u64>,
}

/// Slots to copy: `values` go to slots `first..first + values.len()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    pub first: usize,
    pub values: Vec<u64>,
}

impl SlotTable {
    /// A table of `len` slots whose device copy is all zeros (as allocated).
    pub fn new(len: usize) -> SlotTable {
        SlotTable { shadow: vec![0; len] }
    }

    /// The upload that makes the device table equal `ctx`, with slot `forced.0` set to `forced.1` whatever the
    /// host thinks it holds; `None` when nothing needs copying. Records the upload as done.
    pub fn update(&mut self, ctx: &[u64], forced: Option<(usize, u64)>) -> Option<Upload> {
        assert_eq!(ctx.len(), self.shadow.len(), "the context changed size");
        let want = |i: usize| match forced {
            Some((slot, v)) if slot == i => v,
            _ => ctx[i],
        };
        let changed = |i: &usize| ctx[*i] != self.shadow[*i];
        let first = (0..ctx.len()).find(changed);
        let last = (0..ctx.len()).rev().find(changed);
        let (first, last) = match (first, last, forced) {
            (Some(a), Some(b), Some((f, _))) => (a.min(f), b.max(f)),
            (Some(a), Some(b), None) => (a, b),
            (_, _, Some((f, _))) => (f, f),
            _ => return None,
        };
        let values: Vec<u64> = (first..=last).map(want).collect();
        self.shadow[first..=last].copy_from_slice(&values);
        Some(Upload { first, values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_changed_span_is_uploaded() {
        let mut t = SlotTable::new(6);
        assert_eq!(t.update(&[0; 6], None), None);
        let ctx = [7, 0, 0, 9, 0, 0];
        assert_eq!(t.update(&ctx, None), Some(Upload { first: 0, values: vec![7, 0, 0, 9] }));
        assert_eq!(t.update(&ctx, None), None);
        let ctx = [7, 0, 5, 9, 0, 0];
        assert_eq!(t.update(&ctx, None), Some(Upload { first: 2, values: vec![5] }));
    }

    #[test]
    fn the_reduction_slot_is_sent_every_time_it_is_forced() {
        let mut t = SlotTable::new(4);
        let ctx = [1, 2, 3, 0];
        assert_eq!(t.update(&ctx, Some((3, 42))), Some(Upload { first: 0, values: vec![1, 2, 3, 42] }));
        // Nothing changed on the host, but the kernel may have written the slot: it goes again.
        assert_eq!(t.update(&ctx, Some((3, 42))), Some(Upload { first: 3, values: vec![42] }));
        // Without forcing, the host's 0 differs from the recorded 42: sent (harmless for a kernel that ignores it).
        assert_eq!(t.update(&ctx, None), Some(Upload { first: 3, values: vec![0] }));
        let ctx = [9, 2, 3, 0];
        assert_eq!(t.update(&ctx, Some((3, 1))), Some(Upload { first: 0, values: vec![9, 2, 3, 1] }));
    }
}
