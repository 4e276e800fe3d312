//! `docs/architecture.md` matches the code: every workspace crate has a section, headed
//! ``### `DIR` (crate `NAME`)``, and every section names a crate that exists under that name; within a section,
//! every top-level module of the crate (`src/X.rs` or `src/X/`) is named, and every `src/...` path named exists.
//! Also: no crate's top-level modules import each other in a cycle (`use crate::a` in `b` and `use crate::b` in
//! `a`, directly or through others), so each crate's modules can be read in a dependency order.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Workspace members: directory → package name.
fn members() -> BTreeMap<String, String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("workspace Cargo.toml");
    let start = manifest.find("members = [").expect("a members list");
    let list = &manifest[start..manifest[start..].find(']').map(|e| start + e).expect("closing bracket")];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(|dir| {
            let toml = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).expect("member Cargo.toml");
            let name = toml
                .lines()
                .find_map(|l| l.strip_prefix("name = \"").and_then(|r| r.strip_suffix('"')))
                .expect("a package name");
            (dir.to_string(), name.to_string())
        })
        .collect()
}

/// The doc's crate sections: (dir, crate name, section text).
fn sections() -> Vec<(String, String, String)> {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("### `") {
            if let Some((dir, rest)) = h.split_once('`') {
                if let Some(name) = rest.strip_prefix(" (crate `").and_then(|r| r.split('`').next()) {
                    out.push((dir.to_string(), name.to_string(), String::new()));
                    continue;
                }
            }
        }
        if line.starts_with("## ") || line.starts_with("### ") {
            out.push((String::new(), String::new(), String::new()));
        } else if let Some(last) = out.last_mut() {
            last.2.push_str(line);
            last.2.push('\n');
        }
    }
    out.into_iter().filter(|(d, _, _)| !d.is_empty()).collect()
}

/// The crate's top-level modules: `src/X.rs` (not lib.rs/main.rs) and `src/X/` folders.
fn top_modules(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(dir.join("src")).expect("src folder") {
        let p = e.expect("entry").path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            out.insert(format!("src/{name}/"));
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "lib" && stem != "main" {
                out.insert(format!("src/{name}"));
            }
        }
    }
    out
}

/// Backticked `src/...` paths in a section (a trailing `/` marks a folder).
fn named_paths(text: &str) -> BTreeSet<String> {
    text.split('`').skip(1).step_by(2).filter(|s| s.starts_with("src/")).map(str::to_string).collect()
}

#[test]
fn every_crate_and_module_is_in_the_architecture_doc_and_nothing_else_is() {
    let members = members();
    let sections = sections();
    let mut problems = Vec::new();
    let documented: BTreeMap<&str, &str> = sections.iter().map(|(d, n, _)| (d.as_str(), n.as_str())).collect();
    for (dir, name) in &members {
        match documented.get(dir.as_str()) {
            None => problems.push(format!("crate {name} ({dir}) has no section `### `{dir}` (crate `{name}`)`")),
            Some(n) if n != name => problems.push(format!("section for {dir} names crate {n}, but it is {name}")),
            _ => {}
        }
    }
    for (dir, name, text) in &sections {
        if !members.contains_key(dir) {
            problems.push(format!("section `{dir}` (crate {name}) names no workspace member"));
            continue;
        }
        let crate_dir = root().join(dir);
        let named = named_paths(text);
        for m in top_modules(&crate_dir) {
            if !named.contains(&m) {
                problems.push(format!("{dir}: module `{m}` is not described"));
            }
        }
        for p in &named {
            if !crate_dir.join(p.trim_end_matches('/')).exists() {
                problems.push(format!("{dir}: `{p}` is named but does not exist"));
            }
        }
    }
    assert!(problems.is_empty(), "docs/architecture.md is out of date:\n{}", problems.join("\n"));
}

/// Top-level module → the top-level modules its code names through `crate::` (comments ignored).
fn module_imports(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    fn files(p: &Path, out: &mut Vec<PathBuf>) {
        if p.is_dir() {
            for e in std::fs::read_dir(p).expect("folder") {
                files(&e.expect("entry").path(), out);
            }
        } else if p.is_file() && p.extension().is_some_and(|x| x == "rs") {
            out.push(p.to_path_buf());
        }
    }
    let modules: BTreeSet<String> = top_modules(dir)
        .into_iter()
        .map(|m| m.trim_start_matches("src/").trim_end_matches('/').trim_end_matches(".rs").to_string())
        .collect();
    let mut out = BTreeMap::new();
    for m in &modules {
        let mut fs = Vec::new();
        let base = dir.join("src");
        files(&base.join(format!("{m}.rs")), &mut fs);
        files(&base.join(m), &mut fs);
        let mut deps = BTreeSet::new();
        for f in fs {
            let text = std::fs::read_to_string(&f).expect("source");
            for line in text.lines() {
                let code = line.split("//").next().unwrap_or("").replace("$crate", "");
                let mut rest = code.as_str();
                while let Some(i) = rest.find("crate::") {
                    rest = &rest[i + 7..];
                    let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if word.is_empty() {
                        // `use crate::{a, b::c}`
                        if let Some(group) = rest.strip_prefix('{') {
                            for item in group.split('}').next().unwrap_or("").split(',') {
                                let w: String =
                                    item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                                deps.insert(w);
                            }
                        }
                    } else {
                        deps.insert(word);
                    }
                }
            }
        }
        deps.retain(|d| d != m && modules.contains(d));
        out.insert(m.clone(), deps);
    }
    out
}

/// A cycle in the import graph, if any, as the modules along it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            match state.get(d.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == d).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(d, g, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let mut problems = Vec::new();
    for dir in members().keys() {
        if let Some(cycle) = find_cycle(&module_imports(&root().join(dir))) {
            problems.push(format!("{dir}: {}", cycle.join(" -> ")));
        }
    }
    assert!(problems.is_empty(), "import cycles between a crate's top-level modules:\n{}", problems.join("\n"));
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let g = |edges: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            m.entry(a.to_string()).or_default().insert(b.to_string());
            m.entry(b.to_string()).or_default();
        }
        m
    };
    assert_eq!(find_cycle(&g(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        find_cycle(&g(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}
