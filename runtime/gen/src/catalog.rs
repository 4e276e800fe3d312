//! The generators and their keys as one table: the spec parser takes its lists of valid names and keys from it and
//! `irgc gen --help` prints it, so the help cannot drift from what the parser accepts. The default values are
//! defined here too, and the help prints them from the same constants the parser uses.

use std::fmt::Write as _;

use crate::grid::DEFAULT_DROP;
use crate::rmat::RmatPreset;
use crate::weights::WeightSpec;

/// The seed used when a spec gives none.
pub const DEFAULT_SEED: u64 = 1;
/// The R-MAT edge factor used when a spec gives none (the Graph500 one).
pub const DEFAULT_EDGE_FACTOR: u32 = 16;
/// The Erdős–Rényi average degree used when a spec gives none.
pub const DEFAULT_DEGREE: f64 = 16.0;

/// What happens when a key is not given.
pub enum KeyDefault {
    /// This value is used (as text, from the parser's constant).
    Value(fn() -> String),
    /// The spec must give the key; the text says so, naming any alternative (`n` or `scale`).
    Required(&'static str),
}

/// One `KEY=VALUE` a generator accepts.
pub struct KeyDoc {
    pub name: &'static str,
    pub default: KeyDefault,
    pub meaning: &'static str,
}

/// One generator: its name after `gen:`, what it makes, its keys in the order the parser lists them, and a spec
/// that parses (shown in the help, and the base the tests build on).
pub struct GeneratorDoc {
    pub name: &'static str,
    pub summary: &'static str,
    pub keys: &'static [KeyDoc],
    pub example: &'static str,
}

const fn key(name: &'static str, default: fn() -> String, meaning: &'static str) -> KeyDoc {
    KeyDoc { name, default: KeyDefault::Value(default), meaning }
}

const fn required(name: &'static str, meaning: &'static str) -> KeyDoc {
    KeyDoc { name, default: KeyDefault::Required("required"), meaning }
}

const SEED: KeyDoc =
    key("seed", || DEFAULT_SEED.to_string(), "the random seed (same seed, same graph, on any machine)");
const WEIGHTS: KeyDoc =
    key("weights", || WeightSpec::default().to_string(), "none, int[:LO:HI] (1..255), float[:LO:HI] (0..1)");
const N: KeyDoc =
    KeyDoc { name: "n", default: KeyDefault::Required("n or scale required"), meaning: "the number of nodes" };
const SCALE_N: KeyDoc =
    KeyDoc { name: "scale", default: KeyDefault::Required("n or scale required"), meaning: "2^scale nodes (1 to 31)" };
const SCALE: KeyDoc = required("scale", "2^scale nodes (1 to 31)");
const EF: KeyDoc = key("ef", || DEFAULT_EDGE_FACTOR.to_string(), "edges per node (the edge factor)");

/// Every generator, in the order error messages list them.
pub const GENERATORS: &[GeneratorDoc] = &[
    GeneratorDoc {
        name: "rmat",
        summary: "R-MAT power-law graph (skewed degrees, a giant component and a small diameter)",
        keys: &[
            SCALE,
            EF,
            key("a", || "from preset".into(), "probability of the top-left quadrant"),
            key("b", || "from preset".into(), "probability of the top-right quadrant"),
            key("c", || "from preset".into(), "probability of the bottom-left quadrant"),
            key("d", || "1-a-b-c".into(), "probability of the bottom-right quadrant"),
            key("preset", || "graph500".into(), RmatPreset::NAMES),
            SEED,
            WEIGHTS,
        ],
        example: "rmat:scale=16,ef=16,seed=1",
    },
    GeneratorDoc {
        name: "kron",
        summary: "Graph500 Kronecker graph: rmat with the Graph500 probabilities fixed",
        keys: &[SCALE, EF, SEED, WEIGHTS],
        example: "kron:scale=20",
    },
    GeneratorDoc {
        name: "er",
        summary: "Erdős–Rényi G(n, m) random graph with m = n * deg / 2",
        keys: &[N, SCALE_N, key("deg", || DEFAULT_DEGREE.to_string(), "average degree"), SEED, WEIGHTS],
        example: "er:n=1000,deg=8",
    },
    GeneratorDoc {
        name: "rgg",
        summary: "random geometric graph as in DIMACS-10: points in the unit square joined when close",
        keys: &[
            N,
            SCALE_N,
            key("radius", || "0.55*sqrt(ln n/n)".into(), "the connection radius (DIMACS-10's)"),
            SEED,
            WEIGHTS,
        ],
        example: "rgg:scale=15",
    },
    GeneratorDoc {
        name: "delaunay",
        summary: "Delaunay triangulation of uniform random points (planar mesh)",
        keys: &[N, SCALE_N, SEED, WEIGHTS],
        example: "delaunay:scale=15",
    },
    GeneratorDoc {
        name: "grid",
        summary: "road-like w x h grid with a fraction of its edges removed (large diameter)",
        keys: &[
            required("w", "width in nodes"),
            required("h", "height in nodes"),
            key("drop", || DEFAULT_DROP.to_string(), "fraction of the grid's edges removed"),
            SEED,
            WEIGHTS,
        ],
        example: "grid:w=64,h=64,weights=int:1:100",
    },
];

/// The generator named `kind` (lower case).
pub fn generator(kind: &str) -> Option<&'static GeneratorDoc> {
    GENERATORS.iter().find(|g| g.name == kind)
}

/// The generator names, comma-separated, for messages.
pub fn names() -> String {
    GENERATORS.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

impl GeneratorDoc {
    /// The key names, comma-separated, for messages.
    pub fn key_names(&self) -> String {
        self.keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
    }
}

/// Every generator with its keys, defaults and an example, as `irgc gen --help` prints it.
pub fn help_text() -> String {
    let mut out = String::from("Generators (a spec is KIND:KEY=VALUE,...; every generated graph is undirected):\n");
    for g in GENERATORS {
        let _ = writeln!(out, "\n  {}  {}", g.name, g.summary);
        for k in g.keys {
            let default = match k.default {
                KeyDefault::Value(d) => format!("default {}", d()),
                KeyDefault::Required(text) => text.to_string(),
            };
            let _ = writeln!(out, "    {:<8} {:<25} {}", k.name, default, k.meaning);
        }
        let _ = writeln!(out, "    e.g. {}", g.example);
    }
    out
}
