//! Documentation that must not drift from the code.

use std::fs;

fn doc(name: &str) -> String {
    let path = support::workspace_root().join("docs").join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn docs_subset_lists_every_keyword() {
    let text = doc("subset.md");
    for k in schemalect::keywords::SUBSET {
        assert!(
            text.contains(&format!("`{}`", k.name)),
            "docs/subset.md does not name `{}`",
            k.name
        );
    }
    for k in schemalect::keywords::EXTENDED {
        assert!(
            text.contains(&format!("`{}`", k.name)),
            "docs/subset.md does not name the extended keyword `{}`",
            k.name
        );
    }
    for (k, _) in schemalect::keywords::OUTSIDE {
        assert!(
            text.contains(&format!("`{k}`")),
            "docs/subset.md does not name `{k}`"
        );
    }
    let defaults = schemalect::Limits::default();
    for (n, what) in [
        (defaults.max_depth, "depth"),
        (defaults.max_nodes, "nodes"),
        (defaults.max_enum_values, "enum values"),
        (defaults.max_pattern_len, "pattern length"),
    ] {
        let shown = n
            .to_string()
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join(",");
        assert!(
            text.contains(&format!("| {shown} |")),
            "docs/subset.md does not give the default {what} limit {shown}"
        );
    }
}
