//! Graph colouring: any proper colouring is a right answer, so the check is validity, and the summary reports how
//! many colours were used (the quality measure colouring heuristics compete on).

use std::collections::HashSet;
use std::fmt::Display;
use std::hash::Hash;

use irgc_graph::Csr;

use crate::{check_len, Mismatch};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColoringSummary {
    /// Distinct colours used.
    pub colors: u64,
}

/// Checks that no edge joins two nodes of the same colour. Self loops are ignored (no colouring could satisfy
/// them). The first conflict, in order of source node then edge, is reported.
pub fn check_coloring<C: Copy + Eq + Hash + Display>(g: &Csr, colors: &[C]) -> Result<ColoringSummary, Mismatch> {
    check_len("colours", g, colors.len())?;
    for v in 0..g.num_nodes() {
        let c = colors[v as usize];
        if let Some(&u) = g.neighbors(v).iter().find(|&&u| u != v && colors[u as usize] == c) {
            return Err(Mismatch::Edge {
                what: "colouring conflict",
                from: g.labels.label(v),
                to: g.labels.label(u),
                detail: format!("both ends have colour {c}"),
            });
        }
    }
    Ok(ColoringSummary { colors: colors.iter().collect::<HashSet<_>>().len() as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::undirected;

    #[test]
    fn valid_colourings_are_counted() {
        // A triangle 0-1-2 with a tail 2-3 and a self loop on 3.
        let g = undirected(4, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 3)]);
        assert_eq!(check_coloring(&g, &[0u32, 1, 2, 0]).unwrap(), ColoringSummary { colors: 3 });
    }

    #[test]
    fn conflicts_name_the_lower_node_first() {
        let g = undirected(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        let err = check_coloring(&g, &[0u32, 1, 2, 2]).unwrap_err();
        assert_eq!(err.to_string(), "colouring conflict at edge 102 -> 103: both ends have colour 2");
        assert_eq!(err.node(), Some(102));
    }
}
