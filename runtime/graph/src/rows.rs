//! Cutting an array with one slot per edge into its rows, so that the rows can be filled or sorted in parallel
//! (building a CSR, making it simple, renumbering it).

/// `edges` (one slot per edge) cut into the rows `row_start` describes, for filling or sorting them in parallel.
pub(crate) fn rows_of<'a, T>(edges: &'a mut [T], row_start: &[u64]) -> Vec<&'a mut [T]> {
    let mut rows = Vec::with_capacity(row_start.len().saturating_sub(1));
    let mut rest = edges;
    for w in row_start.windows(2) {
        let (row, tail) = std::mem::take(&mut rest).split_at_mut((w[1] - w[0]) as usize);
        rows.push(row);
        rest = tail;
    }
    rows
}
