//! The boundary of the engine: the front ends (`src/cli`, `src/ui`) reach it only through
//! `engine::api`. Reads their source files and names file and line of any other
//! `crate::engine` path.

use std::path::{Path, PathBuf};

/// The lines of `text` (numbered from 1) that name `crate::engine` other than as
/// `crate::engine::api` (`crate::engine::fix::…`, `crate::engine::{…}`, `crate::engine::Error`,
/// `use crate::engine;`).
fn paths_past_the_api(text: &str) -> Vec<(usize, String)> {
    const ROOT: &str = "crate::engine";
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find(ROOT) {
            let after = &rest[at + ROOT.len()..];
            let through_api = after
                .strip_prefix("::api")
                .is_some_and(|tail| !tail.starts_with(|c: char| c.is_alphanumeric() || c == '_'));
            if !through_api {
                out.push((number + 1, line.trim().to_string()));
                break;
            }
            rest = after;
        }
    }
    out
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_check_names_a_path_past_the_api_and_lets_the_api_through() {
    let text = "use crate::engine::api::{self, Source};\n\
                use crate::engine::fix::Scope;\n\
                let x = crate::engine::api::fix::plan(); let e = crate::engine::Error::Cancelled;\n\
                use crate::engine::{api, report};\n\
                use crate::engine::apis::X;\n\
                use crate::engine;\n";
    let lines: Vec<usize> = paths_past_the_api(text).iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6]);
}

#[test]
fn the_front_ends_reach_the_engine_only_through_api() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for front_end in ["src/cli", "src/ui"] {
        files.extend(rust_files(&root.join(front_end)));
    }
    assert!(
        files.len() > 20,
        "the front ends' sources were not found: {files:?}"
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (line, code) in paths_past_the_api(&text) {
            found.push(format!("{shown}:{line}: {code}"));
        }
    }
    assert!(
        found.is_empty(),
        "the front ends reach past engine::api (name it in engine::api and import it from there):\n{}",
        found.join("\n")
    );
}
