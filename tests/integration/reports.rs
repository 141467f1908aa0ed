//! Reports through the built CLI: JSON, Markdown and HTML from one machine file with a planted
//! user, host, domain, GPU UUID and secrets — checked byte by byte for leaks in every format —
//! reopened byte-stable, compared two and many at a time, and refused with exit 2 when damaged;
//! `--format` wins over the output extension; a report only reads the fix journal.

use crate::fixtures_build::DllSpec;
use crate::support::report_of as report;
use crate::support::{fixture, json, run_cli, stderr, stdout};
use std::path::{Path, PathBuf};

const USER: &str = "zelda77";
const HOST: &str = "HYRULE-WS-042";
const DOMAIN: &str = "KOKIRICORP";
const HF_TOKEN: &str = "hf_PlantedTokenDoNotLeak9931";
const AWS_SECRET: &str = "wJalrPlantedSecretKEY/K7MDENG";
const GPU_UUID: &str = "GPU-5f1c2a3b-9d8e-4f7a-b6c5-0123456789ab";

/// Copies a seed machine into `dir`, renames its user folder to USER and plants identity and
/// secrets in its environment (and a script-named folder on PATH).
fn planted_machine(dir: &Path) -> PathBuf {
    let seed = fixture("machines/win-cuda-tf-torch");
    let status = std::process::Command::new("cp")
        .args(["-r"])
        .arg(&seed)
        .arg(dir.join("m"))
        .status()
        .expect("cp runs");
    assert!(status.success());
    let users = dir.join("m/fs/C/Users");
    std::fs::rename(users.join("ana"), users.join(USER)).expect("the seed has C:\\Users\\ana");
    let toml = dir.join("m/machine.toml");
    let text = std::fs::read_to_string(&toml)
        .unwrap()
        .replace(r"Users\ana", &format!(r"Users\{USER}"));
    let planted = format!(
        "[env]\nUSERNAME = '{USER}'\nUSERPROFILE = 'C:\\Users\\{USER}'\nCOMPUTERNAME = '{HOST}'\n\
         USERDOMAIN = '{DOMAIN}'\nHF_TOKEN = '{HF_TOKEN}'\nAWS_SECRET_ACCESS_KEY = '{AWS_SECRET}'\n\
         CUDA_VISIBLE_DEVICES = '{GPU_UUID}'\n"
    );
    let text = text.replacen("[env]\n", &planted, 1).replacen(
        "PATH = '",
        r"PATH = 'C:\tools\<script>alert(1)</script>;",
        1,
    );
    std::fs::write(&toml, text).unwrap();
    toml
}

fn assert_no_leak(text: &str, what: &str) {
    let lower = text.to_ascii_lowercase();
    for secret in [USER, HOST, DOMAIN, HF_TOKEN, AWS_SECRET, GPU_UUID] {
        assert!(
            !lower.contains(&secret.to_ascii_lowercase()),
            "{what} leaks {secret}"
        );
    }
}

#[test]
fn every_format_is_redacted_by_default_and_no_redact_says_what_it_adds() {
    let dir = tempfile::tempdir().unwrap();
    let machine = planted_machine(dir.path());
    for ext in ["json", "md", "html"] {
        let out = dir.path().join(format!("r.{ext}"));
        let o = report(&machine, &out, &[]);
        assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        let text = String::from_utf8(bytes).expect("reports are UTF-8");
        assert_no_leak(&text, ext);
        assert!(text.contains("GPU-1"), "{ext}: the GPU UUID becomes GPU-1");
    }
    let report_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(
        report_json["snapshot"]["env"]["HF_TOKEN"], "<set>",
        "the name stays"
    );
    assert_eq!(
        report_json["snapshot"]["env"]["USERPROFILE"],
        r"C:\Users\<user>"
    );
    assert_eq!(report_json["snapshot"]["env"]["USERNAME"], "<user>");
    assert_eq!(report_json["redacted"], true);
    assert!(report_json["captured_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(report_json["tool"]["name"], "cuda-triage");
    let path = report_json["machine"]["env"]["PATH"].as_str().unwrap();
    assert!(path.contains(r"C:\Users\<user>\AppData"), "{path}");

    let out = dir.path().join("open.json");
    let o = report(&machine, &out, &["--no-redact"]);
    let said = stderr(&o);
    assert!(
        said.contains("user name") && said.contains("host name"),
        "{said}"
    );
    assert!(said.contains("environment variable"), "{said}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains(HF_TOKEN) && text.contains(USER));
}

#[test]
fn html_escapes_every_string_and_fetches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let machine = planted_machine(dir.path());
    let out = dir.path().join("r.html");
    report(&machine, &out, &[]);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "no script element, ever");
    for fetch in ["src=", "href=", "@import", "url("] {
        assert!(!lower.contains(fetch), "the page fetches nothing ({fetch})");
    }
    assert!(lower.find("<h2>findings</h2>") < lower.find("<h2>versions</h2>"));
    assert!(html.contains("<details>"));
}

#[test]
fn markdown_is_github_ready_findings_first_and_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let machine = planted_machine(dir.path());
    // A real DLL (mingw) in the machine's C:\app that needs cuBLAS 11, for the report's tree.
    let app = dir.path().join("m/fs/C/app");
    std::fs::create_dir_all(&app).unwrap();
    DllSpec::new("trainer.dll")
        .import("cublas64_11.dll", &["cublasCreate_v2"])
        .import("KERNEL32.dll", &["GetTickCount"])
        .build(&app)
        .expect("mingw builds the DLL (install gcc-mingw-w64-x86-64)");
    let out = dir.path().join("r.md");
    let o = report(&machine, &out, &["--tree", r"C:\app\trainer.dll"]);
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.chars().count() <= 65_536);
    assert!(md.find("## Findings").unwrap() < md.find("## Versions").unwrap());
    assert!(md.contains("| NVIDIA driver | 546.33 |"), "{md}");
    assert!(
        md.contains(r"Dependency tree of C:\app\trainer.dll"),
        "{md}"
    );
    assert!(
        md.contains("cublas64_11.dll NOT FOUND"),
        "the miss is shown: {md}"
    );
    // Outside code (where GitHub shows text as it is) HTML is escaped.
    let outside_fences: String = md.split("```").step_by(2).collect();
    let outside_code = regex::Regex::new(r"`+[^`]*`+")
        .unwrap()
        .replace_all(&outside_fences, "");
    assert!(!outside_code.contains("<script"), "{outside_code}");
    assert!(
        md.contains("```text\nCUDA_PATH="),
        "the environment is in a code block"
    );
}

#[test]
fn a_saved_report_reopens_byte_stable() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let machine = fixture("machines/win-cuda-tf-torch/machine.toml");
    report(&machine, &out, &[]);
    let saved = std::fs::read_to_string(&out).unwrap();
    let o = run_cli(&["open", out.to_str().unwrap(), "--json"]);
    assert_eq!(stdout(&o), saved);
    let reopened = json(&o);
    let direct = json(&run_cli(&[
        "scan",
        "--machine",
        machine.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(
        reopened["findings"], direct["findings"],
        "same findings as the scan"
    );
}

fn saved(dir: &Path, name: &str, seed: &str) -> PathBuf {
    let out = dir.join(format!("{name}.json"));
    let o = report(
        &fixture(&format!("machines/{seed}/machine.toml")),
        &out,
        &[],
    );
    assert!(out.exists(), "{}", stderr(&o));
    out
}

#[test]
fn two_reports_compare_by_component_environment_and_findings() {
    let dir = tempfile::tempdir().unwrap();
    let a = saved(dir.path(), "a", "win-cuda-tf-torch");
    let b = saved(dir.path(), "b", "win-basic");
    let o = run_cli(&[
        "report",
        "--compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    let result = &v["comparison"]["result"];
    let statuses: Vec<&str> = result["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert!(statuses.iter().any(|s| *s != "match"), "{statuses:?}");
    assert!(!result["env"].as_array().unwrap().is_empty());
    let one_sided =
        result["only_a"].as_array().unwrap().len() + result["only_b"].as_array().unwrap().len();
    assert!(one_sided > 0);

    let same = run_cli(&[
        "report",
        "--compare",
        a.to_str().unwrap(),
        a.to_str().unwrap(),
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    assert!(stdout(&same).contains("No difference"));
}

#[test]
fn many_reports_are_grouped_and_the_odd_one_stands_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<PathBuf> = (0..3)
        .map(|i| saved(dir.path(), &format!("node{i}"), "linux-cuda124-jax"))
        .collect();
    paths.push(saved(dir.path(), "odd", "linux-basic"));
    let mut args = vec!["report", "--compare"];
    args.extend(paths.iter().map(|p| p.to_str().unwrap()));
    args.push("--json");
    let v = json(&run_cli(&args));
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["members"].as_array().unwrap().len(), 3);
    let odd = groups[1]["members"].as_array().unwrap();
    assert_eq!(odd.len(), 1);
    assert!(odd[0].as_str().unwrap().ends_with("odd.json"));
    assert!(groups[1]["versus_largest"].is_object());
}

#[test]
fn damaged_newer_or_foreign_reports_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = saved(dir.path(), "good", "linux-basic");
    let text = std::fs::read_to_string(&good).unwrap();
    let cases = [
        (
            "truncated.json",
            text[..text.len() / 2].to_string(),
            "not a CUDA Triage report",
        ),
        (
            "newer.json",
            text.replace("\"cuda-triage/1\"", "\"cuda-triage/2\""),
            "newer",
        ),
        (
            "foreign.json",
            "{\"name\": \"package.json\"}".to_string(),
            "not a CUDA Triage report",
        ),
    ];
    for (name, content, says) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        for args in [
            vec!["open", path.to_str().unwrap()],
            vec![
                "report",
                "--compare",
                good.to_str().unwrap(),
                path.to_str().unwrap(),
            ],
        ] {
            let o = run_cli(&args);
            assert_eq!(o.status.code(), Some(2), "{name}: {args:?}");
            assert!(stderr(&o).contains(says), "{name}: {}", stderr(&o));
        }
    }
}

#[test]
fn reopening_runs_this_builds_rules_on_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let out = saved(dir.path(), "jax", "linux-cuda124-jax");
    let mut report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let codes = |v: &serde_json::Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let saved_codes = codes(&report);
    assert!(
        saved_codes.iter().any(|c| c == "xla-cuda-data-dir-missing"),
        "{saved_codes:?}"
    );
    // Findings are recomputed, not read back: drop them, and mend XLA_FLAGS in the snapshot.
    report["findings"] = serde_json::json!([]);
    report["snapshot"]["env"]["XLA_FLAGS"] =
        serde_json::json!("--xla_gpu_cuda_data_dir=/usr/local/cuda");
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    let reopened = json(&run_cli(&["open", edited.to_str().unwrap(), "--json"]));
    let now = codes(&reopened);
    assert!(
        !now.contains(&"xla-cuda-data-dir-missing".to_string()),
        "{now:?}"
    );
    let expected: Vec<String> = saved_codes
        .into_iter()
        .filter(|c| c != "xla-cuda-data-dir-missing")
        .collect();
    assert_eq!(now, expected);
}

#[test]
fn a_redacted_report_reopens_with_its_findings() {
    let dir = tempfile::tempdir().unwrap();
    let machine = planted_machine(dir.path());
    let out = dir.path().join("r.json");
    report(&machine, &out, &[]);
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let o = run_cli(&["open", out.to_str().unwrap(), "--json"]);
    assert!(
        !stderr(&o).contains("showing the findings saved"),
        "{}",
        stderr(&o)
    );
    assert_eq!(json(&o)["findings"], saved["findings"]);
}

#[test]
fn a_report_of_this_computer_lists_the_fixes_applied_from_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let p = |rel: &str| dir.path().join(rel);
    let run = |args: &[&str]| run_in_home(dir.path(), args);
    cuda_home_fix_applied(dir.path(), "export SECRET_IN_PROFILE=1\n");
    let out = p("r.json");
    run(&["report", "-o", out.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let fixes = report["fixes_applied"].as_array().expect("fixes_applied");
    assert_eq!(fixes.len(), 1);
    assert_eq!(fixes[0]["fix_id"], "fix-cuda_home");
    assert_eq!(fixes[0]["state"], "applied");
    assert!(fixes[0]["applied_at"].as_str().unwrap().ends_with('Z'));
    let md = p("r.md");
    run(&["report", "-o", md.to_str().unwrap()]);
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("Fixes applied") && md.contains("fix-cuda_home"));
    for text in [report.to_string(), md] {
        assert!(!text.contains("SECRET_IN_PROFILE"), "no before-image leaks");
    }
}

#[test]
fn a_report_with_the_gpu_test_keeps_its_results_when_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gpu.json");
    let o = run_cli(&["report", "--gpu-test", "-o", out.to_str().unwrap()]);
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(
        saved["gpu"]["verdict"].is_object() || saved["gpu"]["verdict"].is_string(),
        "{}",
        saved["gpu"]
    );
    let gpu_findings: Vec<&serde_json::Value> = saved["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("gpu-test-"))
        .collect();
    // CI has no GPU: the test says so as a finding of its own.
    assert!(!gpu_findings.is_empty(), "{}", saved["findings"]);
    let reopened = json(&run_cli(&["open", out.to_str().unwrap(), "--json"]));
    assert_eq!(reopened["findings"], saved["findings"]);
    assert_eq!(reopened["gpu"], saved["gpu"]);
    let refused = run_cli(&[
        "report",
        "--gpu-test",
        "--machine",
        fixture("machines/linux-basic/machine.toml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
}

/// Copies a seed machine into `dir/m` and puts `env` lines at the top of its `[env]` table and
/// `toml` (whole tables) at the end of its machine file.
fn seeded_machine(dir: &Path, seed: &str, env: &str, toml: &str) -> PathBuf {
    let status = std::process::Command::new("cp")
        .args(["-r"])
        .arg(fixture(&format!("machines/{seed}")))
        .arg(dir.join("m"))
        .status()
        .expect("cp runs");
    assert!(status.success());
    let path = dir.join("m/machine.toml");
    let text =
        std::fs::read_to_string(&path)
            .unwrap()
            .replacen("[env]\n", &format!("[env]\n{env}"), 1);
    std::fs::write(&path, format!("{text}{toml}")).unwrap();
    path
}

#[test]
fn registry_environment_values_outside_the_allow_list_are_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let machine = seeded_machine(dir.path(), "win-basic", "", "");
    // Replace the seed's registry table with one holding `setx`-stored secrets.
    let text = std::fs::read_to_string(&machine).unwrap().replace(
        "[registry]\n'HKCU\\Environment' = { Path = 'C:\\Users\\ana\\AppData\\Local\\Microsoft\\WindowsApps' }\n",
        &format!(
            "[registry]\n'HKCU\\Environment' = {{ Path = 'C:\\Users\\ana\\AppData\\Local\\Microsoft\\WindowsApps', \
             HF_TOKEN = '{HF_TOKEN}', CUDA_PATH = 'C:\\cuda' }}\n\
             'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment' = \
             {{ Path = 'C:\\Windows\\system32', AWS_SECRET_ACCESS_KEY = '{AWS_SECRET}' }}\n"
        ),
    );
    assert!(
        text.contains(HF_TOKEN),
        "the seed's registry table was replaced"
    );
    std::fs::write(&machine, text).unwrap();
    for ext in ["json", "md", "html"] {
        let out = dir.path().join(format!("r.{ext}"));
        let o = report(&machine, &out, &[]);
        assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
        let text = std::fs::read_to_string(&out).unwrap();
        for secret in [HF_TOKEN, AWS_SECRET] {
            assert!(!text.contains(secret), "{ext} leaks {secret}");
        }
    }
    let report_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    let keys = &report_json["snapshot"]["registry"]["keys"];
    assert_eq!(keys[r"HKCU\Environment"]["HF_TOKEN"], "<set>", "{keys}");
    assert_eq!(keys[r"HKCU\Environment"]["CUDA_PATH"], r"C:\cuda");
    assert_eq!(
        keys[r"HKCU\Environment"]["Path"],
        r"C:\Users\ana\AppData\Local\Microsoft\WindowsApps"
    );
    let system = &keys[r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment"];
    assert_eq!(system["AWS_SECRET_ACCESS_KEY"], "<set>", "{keys}");
    assert_eq!(system["Path"], r"C:\Windows\system32");
}

/// Writes a redacted report of a seed machine with a planted identity and reopens it: the
/// report must read back whole (inventory included) and give the findings it saved.
fn redacted_and_reopened(seed: &str, env: &str) -> (serde_json::Value, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let machine = seeded_machine(
        dir.path(),
        seed,
        &format!("{env}HF_TOKEN = '{HF_TOKEN}'\n"),
        "",
    );
    let out = dir.path().join("r.json");
    let o = report(&machine, &out, &[]);
    assert!(
        o.status.code().is_some_and(|c| c < 2),
        "{env}: {}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(HF_TOKEN), "{env}: never unredacted");
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(saved["redacted"], true);
    let o = run_cli(&["open", out.to_str().unwrap(), "--json"]);
    assert!(
        !stderr(&o).contains("showing the findings saved"),
        "{env}: {}",
        stderr(&o)
    );
    (saved, json(&o))
}

/// Each finding's code and severity (texts differ where a planted name is also a common word).
fn finding_codes(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].to_string(), f["severity"].to_string()))
        .collect()
}

#[test]
fn a_user_named_like_a_field_keeps_the_report_readable() {
    // `root` is the usual user of GPU servers and containers; `python` would eat `python_version`.
    for (user, seed) in [
        ("root", "linux-cuda124-jax"),
        ("python", "linux-cuda124-jax"),
    ] {
        let env = format!("USER = '{user}'\nHOME = '/{user}'\n");
        let (saved, reopened) = redacted_and_reopened(seed, &env);
        assert_eq!(finding_codes(&reopened), finding_codes(&saved), "{user}");
        assert_eq!(reopened["inventory"], saved["inventory"], "{user}");
        let inventory = &saved["inventory"];
        assert!(
            inventory["toolkits"][0]["root"].is_string(),
            "{user}: {inventory}"
        );
        let envs = inventory["python_envs"].as_array().unwrap();
        assert!(!envs.is_empty());
        assert!(
            envs.iter()
                .all(|e| e["root"].is_string() && e.get("python_version").is_some())
        );
        assert_eq!(saved["snapshot"]["env"]["USER"], "<user>", "{user}");
    }
}

#[test]
fn a_name_that_is_also_an_enum_value_is_redacted_without_breaking_the_report() {
    // A user "error" meets every finding's severity.
    let env = "USER = 'error'\nHOME = '/home/error'\n";
    let (saved, reopened) = redacted_and_reopened("linux-cuda124-jax", env);
    assert_eq!(saved["snapshot"]["env"]["USER"], "<user>");
    let codes = finding_codes(&saved);
    assert!(codes.iter().any(|(_, s)| s == "\"error\""), "{codes:?}");
    assert_eq!(finding_codes(&reopened), codes);
    assert_eq!(reopened["inventory"], saved["inventory"]);
    // A host "linux" meets the platform (its findings change: the loader's own folders, such as
    // /usr/lib/x86_64-linux-gnu, are redacted too).
    let (saved, _) = redacted_and_reopened("linux-cuda124-jax", "HOSTNAME = 'linux'\n");
    assert_eq!(saved["machine"]["platform"], "linux");
    assert_eq!(saved["snapshot"]["platform"], "linux");
    assert_eq!(saved["snapshot"]["env"]["HOSTNAME"], "<host>");
}

#[test]
fn the_format_option_overrides_the_output_extension() {
    let dir = tempfile::tempdir().unwrap();
    let machine = fixture("machines/linux-basic/machine.toml");
    let written = |file: &str, format: &str| {
        let out = dir.path().join(file);
        let o = report(&machine, &out, &["--format", format]);
        assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("report written to {}", out.display())));
        std::fs::read_to_string(&out).unwrap()
    };
    let html = written("out.json", "html");
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    let md = written("out.html", "md");
    assert!(
        md.contains("## Findings") && !md.contains("<!DOCTYPE"),
        "{md}"
    );
    let text = written("out.md", "json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON despite .md");
    assert_eq!(v["schema"], "cuda-triage/1");
}

#[test]
fn a_report_reads_an_interrupted_journal_and_leaves_it_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let p = |rel: &str| dir.path().join(rel);
    let run = |args: &[&str]| run_in_home(dir.path(), args);
    cuda_home_fix_applied(dir.path(), "export KEEP=1\n");
    // Make the journal look as a crash mid-apply leaves it: `applying`, its writer gone.
    let journals: Vec<PathBuf> = std::fs::read_dir(p("data/journal"))
        .unwrap()
        .map(|e| e.unwrap().path().join("journal.json"))
        .collect();
    assert_eq!(journals.len(), 1);
    let mut journal: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&journals[0]).unwrap()).unwrap();
    journal["state"] = "applying".into();
    journal["pid"] = 0.into();
    std::fs::write(&journals[0], serde_json::to_vec_pretty(&journal).unwrap()).unwrap();
    let target = PathBuf::from(journal["targets"][0]["path"].as_str().unwrap());
    let before = (
        std::fs::read(&journals[0]).unwrap(),
        std::fs::read(&target).unwrap(),
    );
    assert_ne!(
        before.1,
        b"export KEEP=1\n",
        "the fix changed {}",
        target.display()
    );

    let out = p("r.json");
    run(&["report", "-o", out.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let fixes = &report["fixes_applied"];
    assert_eq!(fixes[0]["state"], "applying", "{fixes}");
    let after = (
        std::fs::read(&journals[0]).unwrap(),
        std::fs::read(&target).unwrap(),
    );
    assert!(
        after == before,
        "the report changed the journal or its file"
    );

    // The fix commands do recover it (so the journal above really was an interrupted one).
    assert!(run(&["fix", "history"]).status.success());
    assert_eq!(std::fs::read(&target).unwrap(), b"export KEEP=1\n");
}

/// Runs the binary with a temporary HOME, a mistyped CUDA_HOME and its own data folder.
fn run_in_home(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.join("home"))
        .env("CUDA_HOME", dir.join("opt/cuda-12.44"))
        .env("CUDA_TRIAGE_DATA_DIR", dir.join("data"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

/// A HOME whose login profile holds `profile`, with the CUDA_HOME typo fix applied to it.
fn cuda_home_fix_applied(dir: &std::path::Path, profile: &str) {
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::create_dir_all(dir.join("opt/cuda-12.4/bin")).unwrap();
    std::fs::write(dir.join("home/.profile"), profile).unwrap();
    let applied = run_in_home(dir, &["fix", "apply", "fix-cuda_home", "--yes"]);
    assert!(applied.status.success(), "{}", stderr(&applied));
}
