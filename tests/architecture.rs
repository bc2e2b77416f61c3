//! The arrows that must never exist between the crate's modules (docs/DESIGN.md §1): read from
//! the source, so a forbidden `use` fails `cargo test` instead of waiting for a review.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a source file belongs to (`src/state/store.rs` → `state`).
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// Each non-comment line of a file that names `crate::{target}` or `super::…::{target}`.
fn uses_of(text: &str, target: &str) -> Vec<String> {
    let needle = format!("crate::{target}");
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("//") && (t.contains(&format!("{needle}::")) || t.contains(&format!("{needle};")))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn forbidden_arrows_do_not_exist() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let forbidden: &[(&str, &[&str])] = &[
        ("state", &["project", "tasks", "subagent", "transcript", "js"]),
        ("message", &["state", "project", "tasks", "subagent", "repair", "log", "js"]),
        ("repair", &["state", "project", "tasks", "subagent", "log", "js"]),
        ("log", &["project", "tasks", "subagent", "js"]),
        ("lifecycle", &["state", "project", "tasks", "message", "js"]),
        ("error", &["state", "project", "tasks", "message", "js"]),
        ("project", &["tasks", "subagent", "js"]),
        ("tasks", &["subagent", "js"]),
        ("transcript", &["state", "project", "tasks", "js"]),
        ("stream", &["state", "project", "tasks", "subagent", "transcript", "js"]),
    ];
    let mut found = Vec::new();
    // Test code may reach across layers (it checks how they work together); shipped code may not.
    let is_test = |f: &Path| {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        name == "tests.rs" || name.ends_with("_tests.rs") || f.components().any(|c| c.as_os_str() == "tests")
    };
    for file in files.iter().filter(|f| !is_test(f)) {
        let module = module_of(file);
        let text = fs::read_to_string(file).unwrap();
        if module != "js" && text.lines().any(|l| !l.trim_start().starts_with("//") && l.contains("wasm_bindgen")) {
            found.push(format!("{}: the core names wasm_bindgen", file.display()));
        }
        for (from, targets) in forbidden {
            if module != *from {
                continue;
            }
            for target in *targets {
                for line in uses_of(&text, target) {
                    found.push(format!("{} ({from} → {target}): {}", file.display(), line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "forbidden arrows (docs/DESIGN.md §1):\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_a_forbidden_arrow() {
    // The scanner itself: a `use` of the projector in state code is found, a comment is not.
    assert_eq!(uses_of("use crate::project::Projector;\n// crate::project::x", "project").len(), 1);
    assert!(uses_of("use crate::projection::X;", "project").is_empty());
}
