//! The error corpus (tests/fixtures/error_corpus.toml: real error lines from public reports, each
//! with its source): every entry is pasted into `why - --json` as a user would, and the JSON must
//! identify the expected libraries (component and version family) and carry the expected finding
//! codes. `why --corpus FILE --json` must report the same: every entry met.

use crate::support::{fixture, json, run_cli, run_cli_stdin, stderr};
use cuda_triage::engine::triage::corpus::{CorpusEntry as Entry, parse};

fn corpus_path() -> String {
    fixture("error_corpus.toml").display().to_string()
}

fn corpus() -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus readable");
    parse(&text).expect("corpus parses")
}

fn machine() -> String {
    fixture("machines/win-basic/machine.toml")
        .display()
        .to_string()
}

/// What one entry's `why --json` lacks (empty: every expectation met).
fn unmet(entry: &Entry) -> Vec<String> {
    let out = run_cli_stdin(
        &["why", "-", "--json", "--machine", &machine()],
        &entry.text,
    );
    if !matches!(out.status.code(), Some(0) | Some(1)) {
        return vec![format!("why failed: {}", stderr(&out))];
    }
    let doc = json(&out);
    let mut missing = Vec::new();
    let identified = doc["identified"].as_array().cloned().unwrap_or_default();
    for want in &entry.identified {
        let hit = identified.iter().any(|i| {
            i["file"]
                .as_str()
                .is_some_and(|f| f.eq_ignore_ascii_case(&want.file))
                && i["component"] == want.component.as_str()
                && i["version"] == want.version.as_str()
        });
        if !hit {
            missing.push(format!(
                "{} as {} {} (got {:?})",
                want.file, want.component, want.version, identified
            ));
        }
    }
    let codes: Vec<&str> = doc["findings"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["code"].as_str()).collect())
        .unwrap_or_default();
    for code in &entry.findings {
        if !codes.contains(&code.as_str()) {
            missing.push(format!("finding {code} (got {codes:?})"));
        }
    }
    missing
}

#[test]
fn every_corpus_entry_is_explained_by_why_json() {
    let entries = corpus();
    assert!(
        entries.len() >= 60,
        "the corpus holds {} entries",
        entries.len()
    );
    let mut failures = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        assert!(
            e.source.contains("https://") && !e.text.trim().is_empty(),
            "entry {} needs a source URL and a text",
            i + 1
        );
        assert!(
            !e.identified.is_empty() || !e.findings.is_empty(),
            "entry {} ({}) states no expectation",
            i + 1,
            e.source
        );
        let missing = unmet(e);
        if !missing.is_empty() {
            failures.push(format!("#{} {}: {}", i + 1, e.source, missing.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "corpus misses:\n{}",
        failures.join("\n")
    );
}

#[test]
fn why_corpus_json_reports_the_hit_rate() {
    let out = run_cli(&["why", "--corpus", &corpus_path(), "--json"]);
    let doc = json(&out);
    let total = corpus().len() as u64;
    assert_eq!(doc["total"], total, "{doc}");
    assert_eq!(doc["hits"], total, "misses: {}", doc["misses"]);
    assert_eq!(doc["hit_rate"], 100.0);
    assert_eq!(doc["misses"], serde_json::json!([]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn why_corpus_counts_a_miss_and_exits_1() {
    let dir = std::env::temp_dir().join(format!("ct-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("corpus.toml");
    std::fs::write(
        &path,
        "[[entry]]\nsource = \"https://github.com/tensorflow/tensorflow/issues/57103\"\n\
         text = \"Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\"\n\
         findings = [\"log-no-kernel-image\"]\n\n\
         [[entry]]\nsource = \"https://github.com/tensorflow/tensorflow/issues/57103\"\n\
         text = \"Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\"\n\
         findings = [\"log-tf-dso-load-failed\"]\n",
    )
    .unwrap();
    let out = run_cli(&["why", "--corpus", &path.display().to_string(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["total"], 2);
    assert_eq!(doc["hits"], 1);
    assert_eq!(doc["hit_rate"], 50.0);
    assert_eq!(doc["misses"][0]["index"], 1);
    assert!(
        doc["misses"][0]["missing"][0]
            .as_str()
            .unwrap()
            .contains("log-no-kernel-image")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_torch_lib_dll_says_whose_folder_and_how_to_find_the_missing_dependency() {
    // https://github.com/pytorch/pytorch/issues/129568
    let line = r#"OSError: [WinError 126] The specified module could not be found. Error loading "\.venv\Lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies."#;
    let out = run_cli_stdin(&["why", "-", "--json", "--machine", &machine()], line);
    let doc = json(&out);
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "log-torch-winerror-loading-dll")
        .expect("torch finding");
    let detail = finding["detail"].as_str().unwrap();
    assert!(detail.contains("PyTorch's own DLL"), "{detail}");
    assert!(
        detail.contains(
            r#"cuda-triage tree "\.venv\Lib\site-packages\torch\lib\fbgemm.dll" --context torch"#
        ),
        "{detail}"
    );
    assert_eq!(doc["unrecognized"], serde_json::json!(["fbgemm.dll"]));
}

#[test]
fn a_missing_optional_library_is_a_warning_never_worded_cannot_load() {
    // https://github.com/googlecolab/colabtools/issues/3408 (TensorRT) and
    // https://github.com/tensorflow/tensorflow/issues/44697 (CUPTI)
    let log = "2023-02-13 19:39:03.670024: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/lib64-nvidia\n\
               Could not load dynamic library 'cupti64_110.dll'; dlerror: cupti64_110.dll not found\n";
    let out = run_cli_stdin(&["why", "-", "--json", "--machine", &machine()], log);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    let findings = doc["findings"].as_array().unwrap();
    let optional = findings
        .iter()
        .find(|f| f["code"] == "log-tf-dso-optional-missing")
        .expect("optional finding");
    assert_eq!(optional["severity"], "warning");
    assert!(
        optional["summary"]
            .as_str()
            .unwrap()
            .contains("(and 1 more like it)")
    );
    for f in findings {
        assert_ne!(f["severity"], "error", "{f}");
        let summary = f["summary"].as_str().unwrap().to_ascii_lowercase();
        assert!(
            !summary.contains("cannot load") && !summary.contains("could not load"),
            "{summary}"
        );
    }
}
