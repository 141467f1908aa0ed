//! Guard: what a user sees cites public sources only. Findings, reports, the wizard and the CLI
//! show the `source` and `note` strings of the knowledge tables and the evidence the rules
//! build, so none of them may point at a private notes file (`cuda-facts`, `../shared`), a
//! section sign, an "UNVERIFIED" stamp with no word on what the fact rests on, or the notes'
//! bare shorthand tags (`[NV]`, `[Jl]`, `[issue]`, ...). A public source is a URL, release
//! notes, a file at a tag or commit, a wheel name and version, or an issue with its repository.
//!
//! Checked: every `.toml` under `assets/knowledge` (the compiled-in copy, and the folder is
//! walked so a new table cannot be missed), every string literal in `src/**/*.rs` outside
//! comments and test-only code, and the golden CLI and report outputs under
//! `tests/fixtures/golden`.

use std::path::{Path, PathBuf};

/// Text no user-visible string may contain.
const FORBIDDEN: &[&str] = &[
    "cuda-facts",
    "\u{a7}", // the section sign
    "UNVERIFIED",
    "../shared",
    "[Jl]",
    "[NV]",
    "[TF]",
    "[PT]",
    "[CF]",
    "[copy]",
    "[issue]",
    "[PyPI]",
    "[XLA]",
    "[ORT]",
    "[CuPy]",
    "[JAX]",
    "[MS]",
];

/// The tables as compiled into the binary, by path under `assets/knowledge`.
const ASSET_TABLES: &[(&str, &str)] = &[
    (
        "compute_capability.toml",
        include_str!("../../../../assets/knowledge/compute_capability.toml"),
    ),
    (
        "cudnn_cuda.toml",
        include_str!("../../../../assets/knowledge/cudnn_cuda.toml"),
    ),
    (
        "driver_minimums.toml",
        include_str!("../../../../assets/knowledge/driver_minimums.toml"),
    ),
    (
        "error_catalog.toml",
        include_str!("../../../../assets/knowledge/error_catalog.toml"),
    ),
    (
        "finding_docs.toml",
        include_str!("../../../../assets/knowledge/finding_docs.toml"),
    ),
    (
        "framework_closure.toml",
        include_str!("../../../../assets/knowledge/framework_closure.toml"),
    ),
    (
        "framework_loads.toml",
        include_str!("../../../../assets/knowledge/framework_loads.toml"),
    ),
    (
        "gpu_peaks.toml",
        include_str!("../../../../assets/knowledge/gpu_peaks.toml"),
    ),
    (
        "install_locations.toml",
        include_str!("../../../../assets/knowledge/install_locations.toml"),
    ),
    (
        "library_names.toml",
        include_str!("../../../../assets/knowledge/library_names.toml"),
    ),
    (
        "onnxruntime_builds.toml",
        include_str!("../../../../assets/knowledge/onnxruntime_builds.toml"),
    ),
    (
        "pytorch_builds.toml",
        include_str!("../../../../assets/knowledge/pytorch_builds.toml"),
    ),
    (
        "runtime_loads.toml",
        include_str!("../../../../assets/knowledge/runtime_loads.toml"),
    ),
    (
        "tensorflow_builds.toml",
        include_str!("../../../../assets/knowledge/tensorflow_builds.toml"),
    ),
    (
        "torch_extensions.toml",
        include_str!("../../../../assets/knowledge/torch_extensions.toml"),
    ),
    (
        "generated/driver_entry_points.toml",
        include_str!("../../../../assets/knowledge/generated/driver_entry_points.toml"),
    ),
    (
        "generated/library_files.toml",
        include_str!("../../../../assets/knowledge/generated/library_files.toml"),
    ),
    (
        "generated/package_releases.toml",
        include_str!("../../../../assets/knowledge/generated/package_releases.toml"),
    ),
    (
        "generated/library_functions.toml",
        include_str!("../../../../assets/knowledge/generated/library_functions.toml"),
    ),
    (
        "generated/ptxas_architectures.toml",
        include_str!("../../../../assets/knowledge/generated/ptxas_architectures.toml"),
    ),
    (
        "generated/status_codes.toml",
        include_str!("../../../../assets/knowledge/generated/status_codes.toml"),
    ),
];

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Files under `dir` (recursively) whose name ends with `ext`, sorted.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `file:line: text` for each line of `text` (as chosen by `pick`) holding a forbidden word.
fn offences(file: &str, text: &str, pick: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for part in pick(line) {
            if let Some(w) = FORBIDDEN.iter().find(|w| part.contains(*w)) {
                out.push(format!("{file}:{}: {w:?} in {}", i + 1, line.trim()));
                break;
            }
        }
    }
    out
}

/// `file:line: text` for each literal piece of Rust `text` holding a forbidden word.
fn rust_offences(file: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (line, piece) in rust_literals(text) {
        if let Some(w) = FORBIDDEN.iter().find(|w| piece.contains(*w)) {
            out.push(format!("{file}:{line}: {w:?} in \"{piece}\""));
        }
    }
    out
}

/// A TOML line minus table headers (`[[code]]` is a header, not a tag).
fn toml_text(line: &str) -> Vec<String> {
    if line.trim_start().starts_with('[') {
        Vec::new()
    } else {
        vec![line.to_string()]
    }
}

/// The string literals of Rust source `text` that the binary carries, as (line, text) pieces:
/// comments are skipped, a literal over several lines gives one piece per line, and the file
/// ends for this purpose at its `#[cfg(test)] mod ... {` (test code is not in the binary).
fn rust_literals(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut line) = (0, 1);
    let mut piece: Option<String> = None; // inside a literal
    let mut raw_hashes: Option<usize> = None; // inside r#"..."#
    let mut block = 0; // nesting of /* */
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            if let Some(p) = piece.as_mut() {
                out.push((line, std::mem::take(p)));
            }
            line += 1;
            i += 1;
            continue;
        }
        if let Some(p) = piece.as_mut() {
            let closes = match raw_hashes {
                Some(n) => c == '"' && (1..=n).all(|k| chars.get(i + k) == Some(&'#')),
                None => c == '"',
            };
            if closes {
                out.push((line, piece.take().unwrap_or_default()));
                i += 1 + raw_hashes.take().unwrap_or(0);
            } else if c == '\\' && raw_hashes.is_none() {
                // An escape; a line continuation keeps its newline for the line count.
                i += if chars.get(i + 1) == Some(&'\n') {
                    1
                } else {
                    2
                };
            } else {
                p.push(c);
                i += 1;
            }
            continue;
        }
        if block > 0 {
            if at(i, "*/") {
                block -= 1;
                i += 2;
            } else if at(i, "/*") {
                block += 1;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            block = 1;
            i += 2;
        } else if at(i, "#[cfg(test)]") {
            let rest: String = chars[i..].iter().collect();
            let next = rest.lines().nth(1).unwrap_or("").trim_start();
            if next.starts_with("mod ") && next.trim_end().ends_with('{') {
                break;
            }
            i += 1;
        } else if c == 'r'
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            let n = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + n) == Some(&'"') {
                raw_hashes = Some(n);
                piece = Some(String::new());
                i += 2 + n;
            } else {
                i += 1;
            }
        } else if c == '"' {
            piece = Some(String::new());
            i += 1;
        } else if c == '\'' {
            // A char literal ('"', '\'', '\u{a7}') or a lifetime ('a).
            if chars.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn every_knowledge_table_is_compiled_into_this_check() {
    let dir = crate_dir().join("assets/knowledge");
    for path in files_with(&dir, "toml") {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert!(
            ASSET_TABLES.iter().any(|(name, _)| *name == rel),
            "assets/knowledge/{rel} is not in ASSET_TABLES of {}",
            file!()
        );
    }
}

#[test]
fn knowledge_tables_cite_public_sources_only() {
    let mut bad = Vec::new();
    for (name, text) in ASSET_TABLES {
        bad.extend(offences(
            &format!("assets/knowledge/{name}"),
            text,
            toml_text,
        ));
    }
    assert!(
        bad.is_empty(),
        "{} line(s) cite private notes instead of public sources:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn strings_in_the_code_cite_public_sources_only() {
    let root = crate_dir();
    let mut bad = Vec::new();
    for path in files_with(&root.join("src"), "rs") {
        // Test-only files (a `tests` folder, like this one, or `tests.rs`) are not in the binary.
        let test_only = path.components().any(|c| c.as_os_str() == "tests")
            || path.file_name().is_some_and(|n| n == "tests.rs");
        if test_only {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        bad.extend(rust_offences(&rel, &text));
    }
    assert!(
        bad.is_empty(),
        "{} string literal(s) cite private notes instead of public sources:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn golden_outputs_cite_public_sources_only() {
    let root = crate_dir();
    let mut bad = Vec::new();
    let golden = root.join("tests/fixtures/golden");
    let files = ["json", "md", "html"].map(|ext| files_with(&golden, ext));
    for path in files.iter().flatten() {
        let text = std::fs::read_to_string(path).unwrap();
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        bad.extend(offences(&rel, &text, |l| vec![l.to_string()]));
    }
    assert!(
        bad.is_empty(),
        "{} golden line(s) cite private notes instead of public sources:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_scans_catch_what_they_are_meant_to() {
    let section = "\u{a7}";
    let line = format!("source = \"notes {section}1.2: [NV] a list\"");
    assert_eq!(offences("t.toml", &line, toml_text).len(), 1);
    assert!(offences("t.toml", "[[code]]", toml_text).is_empty());
    let url = "source = \"https://github.com/a/b/issues/1\"";
    assert!(offences("t.toml", url, toml_text).is_empty());

    // Line 5 holds a literal over two lines, line 6 a raw string; the comment, the char
    // literal and the test module are not scanned.
    let rust = r####"fn f() {
    // SS in a comment
    let c = '"';
    e("source", "x \
     SS5 y");
    let r = r#"[NV]"#;
}
#[cfg(test)]
mod tests {
    const T: &str = "SS";
}
"####
        .replace("SS", section);
    let found = rust_offences("t.rs", &rust);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("t.rs:5:"), "{found:?}");
    assert!(found[1].starts_with("t.rs:6:"), "{found:?}");
}
