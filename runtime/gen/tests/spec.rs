//! The spec language: what parses to what, the canonical form, and the exact error messages.

use irgc_gen::{GenSpec, GraphSpec, RmatPreset, WeightSpec};

fn canonical(spec: &str) -> String {
    GenSpec::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}")).to_string()
}

fn error(spec: &str) -> String {
    match GenSpec::parse(spec) {
        Ok(s) => panic!("`{spec}` parsed as {s}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn canonical_forms() {
    assert_eq!(canonical("rmat:scale=20,ef=16,seed=1"), "rmat:scale=20,ef=16,preset=graph500,seed=1");
    assert_eq!(canonical("rmat:scale=5"), "rmat:scale=5,ef=16,preset=graph500,seed=1");
    assert_eq!(canonical("kron:scale=5,seed=3"), "rmat:scale=5,ef=16,preset=graph500,seed=3");
    assert_eq!(canonical("RMAT: scale=5, preset=rmat-b"), "rmat:scale=5,ef=16,preset=rmat-b,seed=1");
    assert_eq!(canonical("rmat:scale=5,preset=kron"), "rmat:scale=5,ef=16,preset=graph500,seed=1");
    assert_eq!(canonical("rmat:scale=5,a=0.25,b=0.25,c=0.25"), "rmat:scale=5,ef=16,preset=rmat-er,seed=1");
    assert_eq!(canonical("rmat:scale=5,a=0.5,b=0.2,c=0.2,d=0.1"), "rmat:scale=5,ef=16,a=0.5,b=0.2,c=0.2,d=0.1,seed=1");
    assert_eq!(canonical("er:scale=10"), "er:n=1024,deg=16,seed=1");
    assert_eq!(canonical("er:n=100,deg=2.5,seed=0,weights=int"), "er:n=100,deg=2.5,seed=0,weights=int:1:255");
    assert_eq!(canonical("rgg:n=100"), "rgg:n=100,seed=1");
    assert_eq!(canonical("rgg:scale=4,radius=0.2,weights=float"), "rgg:n=16,radius=0.2,seed=1,weights=float:0:1");
    assert_eq!(canonical("delaunay:n=7,weights=none"), "delaunay:n=7,seed=1");
    assert_eq!(canonical("grid:w=3,h=4"), "grid:w=3,h=4,drop=0.25,seed=1");
    assert_eq!(canonical("grid:w=3,h=4,drop=0,weights=int:-2:2"), "grid:w=3,h=4,drop=0,seed=1,weights=int:-2:2");
}

#[test]
fn canonical_forms_parse_back_to_the_same_spec() {
    for spec in [
        "rmat:scale=7,a=0.6,b=0.1,c=0.2",
        "rmat:scale=7,ef=3,preset=rmat-g,seed=99,weights=float:-1.5:0.1",
        "er:n=77,deg=0.3",
        "rgg:n=5,radius=0.123456789",
        "grid:w=1,h=1,drop=0.333",
    ] {
        let parsed = GenSpec::parse(spec).unwrap();
        assert_eq!(GenSpec::parse(&parsed.to_string()).unwrap(), parsed, "{spec}");
    }
}

#[test]
fn parsed_values() {
    let s = GenSpec::parse("rmat:scale=3,ef=2,preset=rmat-g,seed=5,weights=int:2:3").unwrap();
    let GraphSpec::Rmat(p) = s.graph else { panic!() };
    assert_eq!((p.scale, p.edge_factor, p.seed), (3, 2, 5));
    assert_eq!(p.probabilities, RmatPreset::G.probabilities());
    assert_eq!(s.weights, WeightSpec::Int { lo: 2, hi: 3 });
    let s = GenSpec::parse("rmat:scale=3,a=0.7,b=0.1,c=0.1").unwrap();
    let GraphSpec::Rmat(p) = s.graph else { panic!() };
    assert!((p.probabilities[3] - 0.1).abs() < 1e-12);
}

#[test]
fn error_messages_name_the_problem_and_the_alternatives() {
    assert_eq!(error("bogus:n=3"), "unknown generator `bogus`; valid generators: rmat, kron, er, rgg, delaunay, grid");
    assert_eq!(error(""), "unknown generator ``; valid generators: rmat, kron, er, rgg, delaunay, grid");
    assert_eq!(
        error("rmat:scale=5,size=3"),
        "unknown key `size` for generator `rmat`; valid keys: scale, ef, a, b, c, d, preset, seed, weights"
    );
    assert_eq!(
        error("kron:scale=5,preset=rmat-b"),
        "unknown key `preset` for generator `kron`; valid keys: scale, ef, seed, weights"
    );
    assert_eq!(error("rmat:scale=40"), "bad value `40` for key `scale`: expected an integer from 1 to 31");
    assert_eq!(error("rmat:ef=4"), "generator `rmat` needs `scale`");
    assert_eq!(error("rmat:scale=4,ef=0"), "bad value `0` for key `ef`: expected a positive integer");
    assert_eq!(
        error("rmat:scale=4,preset=huge"),
        "bad value `huge` for key `preset`: expected graph500, kron, rmat-er, rmat-g, rmat-b"
    );
    assert_eq!(error("rmat:scale=4,a=1.5"), "bad value `1.5` for key `a`: expected a probability from 0 to 1");
    assert_eq!(
        error("rmat:scale=4,a=0.5,b=0.5,c=0.5"),
        "bad value `0.5` for key `a`: expected a+b+c at most 1 (got 1.5)"
    );
    assert_eq!(error("rmat:scale=4,d=0.5"), "bad value `0.5` for key `d`: expected a+b+c+d = 1 (got 1.45)");
    assert_eq!(
        error("rmat:scale=4,seed"),
        "`seed` in generator `rmat` is not KEY=VALUE; valid keys: scale, ef, a, b, c, d, preset, seed, weights"
    );
    assert_eq!(error("rmat:scale=4,seed=1,seed=2"), "key `seed` is given twice");
    assert_eq!(error("rmat:scale=4,seed=-1"), "bad value `-1` for key `seed`: expected an unsigned 64-bit integer");
    assert_eq!(error("er:deg=3"), "generator `er` needs `n` or `scale`");
    assert_eq!(error("er:n=10,scale=3"), "keys `n` and `scale` cannot be given together");
    assert_eq!(error("er:n=0"), "bad value `0` for key `n`: expected an integer from 1 to 4294967295");
    assert_eq!(error("er:n=10,deg=-1"), "bad value `-1` for key `deg`: expected a non-negative number");
    assert_eq!(error("rgg:n=10,radius=0"), "bad value `0` for key `radius`: expected a positive number");
    assert_eq!(
        error("delaunay:n=10,radius=0.1"),
        "unknown key `radius` for generator `delaunay`; valid keys: n, scale, seed, weights"
    );
    assert_eq!(error("grid:w=10"), "generator `grid` needs `w` and `h`");
    assert_eq!(error("grid:w=10,h=2,drop=2"), "bad value `2` for key `drop`: expected a number from 0 to 1");
    assert_eq!(
        error("grid:w=100000,h=100000"),
        "bad value `100000` for key `h`: expected at most 42949 so that w*h fits 32-bit node ids"
    );
    let weights = "expected none, int, int:LO:HI (LO <= HI), float or float:LO:HI (LO < HI)";
    assert_eq!(error("er:n=5,weights=int:5:1"), format!("bad value `int:5:1` for key `weights`: {weights}"));
    assert_eq!(error("er:n=5,weights=float:1:1"), format!("bad value `float:1:1` for key `weights`: {weights}"));
    assert_eq!(error("er:n=5,weights=heavy"), format!("bad value `heavy` for key `weights`: {weights}"));
}

#[test]
fn every_catalog_example_parses_and_every_listed_key_is_read_by_the_parser() {
    for g in irgc_gen::catalog::GENERATORS {
        GenSpec::parse(g.example).unwrap_or_else(|e| panic!("the example `{}` does not parse: {e}", g.example));
        for k in g.keys {
            // The example with this key set to a value no key accepts: the parser must name this key as bad, which it
            // can only do if it reads the key (an unread key would be reported as unknown).
            let (_, body) = g.example.split_once(':').unwrap();
            let mut items: Vec<String> =
                body.split(',').filter(|i| !i.starts_with(&format!("{}=", k.name))).map(String::from).collect();
            items.push(format!("{}=!", k.name));
            let spec = format!("{}:{}", g.name, items.join(","));
            assert!(
                matches!(GenSpec::parse(&spec), Err(irgc_gen::GenError::BadValue { key, .. }) if key == k.name),
                "`{spec}`: {:?}",
                GenSpec::parse(&spec)
            );
        }
    }
}

#[test]
fn the_help_lists_every_generator_with_its_keys_and_defaults() {
    let help = irgc_gen::catalog::help_text();
    for g in irgc_gen::catalog::GENERATORS {
        assert!(help.contains(&format!("\n  {}  ", g.name)), "{} missing from:\n{help}", g.name);
        assert!(help.contains(g.example), "{help}");
    }
    assert!(help.contains("ef       default 16 "), "{help}");
    assert!(help.contains("drop     default 0.25 "), "{help}");
    assert!(help.contains("scale    required "), "{help}");
}
