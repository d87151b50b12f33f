//! The library's modules form layers: no top-level module imports, through any chain, one that
//! imports it back, and the README's "Layout" lists them bottom-up, each after every module it
//! uses. A circle between two modules (a type one needs living in the other) is found here,
//! with the lines that close it, instead of growing unnoticed.
//!
//! Read from the source text: a module's dependencies are the `crate::<module>` paths in its
//! code, outside comments and outside test code (`tests.rs` files, a `#[cfg(test)]` module,
//! inline or in its own file).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One module's uses of another: the places (`file:line`) that name it.
type Uses = BTreeMap<String, Vec<String>>;

fn library_src() -> PathBuf {
    support::workspace_root().join("crates/schemalect/src")
}

/// The names of the modules `lib.rs` declares, `#[cfg(test)]` ones left out.
fn top_modules(src: &Path) -> BTreeSet<String> {
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    declared_modules(&lib)
        .into_iter()
        .filter(|(_, test_only)| !test_only)
        .map(|(name, _)| name)
        .collect()
}

/// The `mod name;` declarations of a file, each with whether it is test code.
fn declared_modules(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut test_attr = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[") {
            test_attr |= line == "#[cfg(test)]";
            continue;
        }
        let decl = line
            .strip_prefix("pub(crate) mod ")
            .or_else(|| line.strip_prefix("pub mod "))
            .or_else(|| line.strip_prefix("mod "));
        if let Some(name) = decl.and_then(|d| d.strip_suffix(';')) {
            out.push((name.to_string(), test_attr));
        }
        if !line.is_empty() && !line.starts_with("//") {
            test_attr = false;
        }
    }
    out
}

/// The code lines of a file outside comments and inline test modules, numbered from 1. A test
/// module's end is found by counting braces, which its strings and `json!` literals balance.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut test_depth: Option<i64> = None;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if let Some(depth) = test_depth.as_mut() {
            *depth += t.matches('{').count() as i64 - t.matches('}').count() as i64;
            if *depth <= 0 {
                test_depth = None;
            }
            continue;
        }
        if t == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim().starts_with("mod ") && next.trim().ends_with('{'))
        {
            test_depth = Some(0);
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push((i + 1, *line));
    }
    out
}

/// The source files of module `name`, test-only files left out: `name.rs`, `name/mod.rs` and
/// the files of its submodules, followed through their declarations.
fn module_files(src: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo: Vec<(PathBuf, PathBuf)> = Vec::new(); // (file, directory of its submodules)
    let flat = src.join(format!("{name}.rs"));
    if flat.is_file() {
        todo.push((flat, src.join(name)));
    } else {
        todo.push((src.join(name).join("mod.rs"), src.join(name)));
    }
    while let Some((file, dir)) = todo.pop() {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for (sub, test_only) in declared_modules(&text) {
            if test_only || sub == "tests" {
                continue;
            }
            let flat = dir.join(format!("{sub}.rs"));
            if flat.is_file() {
                todo.push((flat, dir.join(&sub)));
            } else {
                todo.push((dir.join(&sub).join("mod.rs"), dir.join(&sub)));
            }
        }
        files.push(file);
    }
    files
}

/// For each top-level module, the other top-level modules its code names, with where.
fn module_graph(src: &Path) -> BTreeMap<String, Uses> {
    let modules = top_modules(src);
    let mut graph = BTreeMap::new();
    for m in &modules {
        let mut uses = Uses::new();
        for file in module_files(src, m) {
            let text = fs::read_to_string(&file).expect("module file");
            let shown = file
                .strip_prefix(src)
                .unwrap_or(&file)
                .display()
                .to_string();
            for (n, line) in code_lines(&text) {
                for (at, _) in line.match_indices("crate::") {
                    let rest = &line[at + "crate::".len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    let target = &rest[..end];
                    if target != m && modules.contains(target) {
                        uses.entry(target.to_string())
                            .or_default()
                            .push(format!("{shown}:{n}"));
                    }
                }
            }
        }
        graph.insert(m.clone(), uses);
    }
    graph
}

/// A chain of modules from `from` back to `to`, if one exists.
fn path_between(
    graph: &BTreeMap<String, Uses>,
    from: &str,
    to: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if from == to {
        return Some(vec![to.to_string()]);
    }
    if !seen.insert(from.to_string()) {
        return None;
    }
    for next in graph.get(from)?.keys() {
        if let Some(mut rest) = path_between(graph, next, to, seen) {
            rest.insert(0, from.to_string());
            return Some(rest);
        }
    }
    None
}

#[test]
fn top_level_modules_import_each_other_without_circles() {
    let src = library_src();
    let graph = module_graph(&src);
    assert!(
        graph.len() > 10,
        "found only {} modules in {}",
        graph.len(),
        src.display()
    );
    let mut circles = Vec::new();
    for (m, uses) in &graph {
        for (dep, places) in uses {
            if let Some(back) = path_between(&graph, dep, m, &mut BTreeSet::new()) {
                let closing: Vec<String> = back
                    .windows(2)
                    .map(|w| format!("{} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]][0]))
                    .collect();
                circles.push(format!(
                    "{m} -> {dep} ({}), back through {}",
                    places[0],
                    closing.join(", ")
                ));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "module circles (move the shared types below both sides):\n{}",
        circles.join("\n")
    );
}

#[test]
fn readme_lists_the_modules_bottom_up() {
    let src = library_src();
    let graph = module_graph(&src);
    let readme = fs::read_to_string(support::workspace_root().join("README.md")).expect("README");
    let marker = "modules, bottom-up";
    let start = readme
        .find(marker)
        .expect("README's Layout names the library's modules bottom-up");
    // The first code block after the marker, without its opening fence's line.
    let after = &readme[start..];
    let open = after.find("```").expect("a code block after the marker");
    let block = &after[open..];
    let block = &block[block.find('\n').map_or(block.len(), |n| n + 1)..];
    let block = &block[..block.find("```").unwrap_or(block.len())];
    // The module names of the listing, in order: the words before each line's description
    // (separated by two or more spaces), split at commas.
    let mut order: Vec<String> = Vec::new();
    for line in block.lines() {
        let names = line.trim_start().split("  ").next().unwrap_or("");
        for name in names.split(',') {
            let name = name.trim().trim_end_matches("/*");
            if !name.is_empty() {
                order.push(name.to_string());
            }
        }
    }
    let at = |m: &str| order.iter().position(|n| n == m);
    let mut problems = Vec::new();
    for (m, uses) in &graph {
        let Some(i) = at(m) else {
            problems.push(format!("`{m}` is not listed"));
            continue;
        };
        for (dep, places) in uses {
            if at(dep).is_some_and(|j| j > i) {
                problems.push(format!(
                    "`{m}` uses `{dep}` ({}), listed after it",
                    places[0]
                ));
            }
        }
    }
    for name in &order {
        if !graph.contains_key(name) {
            problems.push(format!("`{name}` is listed but is not a module of lib.rs"));
        }
    }
    assert!(
        problems.is_empty(),
        "README's module listing:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_reader_sees_uses_and_skips_tests_and_comments() {
    let text = "use crate::a::X;\n// crate::b in a comment\nfn f() { crate::c::g() }\n\
                #[cfg(test)]\nmod tests {\n    use crate::d;\n    fn t() {\n        \
                let _ = \"{}\";\n    }\n}\nuse crate::e;\n";
    let lines: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(
        lines,
        [
            "use crate::a::X;",
            "fn f() { crate::c::g() }",
            "use crate::e;"
        ]
    );
    let decls = declared_modules("#[cfg(test)]\nmod corpus;\npub(crate) mod plan;\nmod tests;\n");
    assert_eq!(
        decls,
        [
            ("corpus".to_string(), true),
            ("plan".to_string(), false),
            ("tests".to_string(), false)
        ]
    );
}
