//! Tests of the environment rules on fake machines.

use super::check;
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::inventory::Inventory;
use crate::engine::rules::RuleInput;

fn codes(findings: &[crate::engine::findings::Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn typo_in_path_gets_the_intended_folder_and_a_fix() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.dir("/usr/local/cuda-12.4/bin").dir("/usr/bin");
    m.env("PATH", "/usr/local/cudda-12.4/bin:/usr/bin:/opt/gone/bin");
    let findings = check(&RuleInput::new(&m.context(), &Inventory::default()));
    let typo = findings
        .iter()
        .find(|f| f.code == "path-entry-typo")
        .expect("typo finding");
    assert!(
        typo.summary.contains("/usr/local/cuda-12.4/bin"),
        "{}",
        typo.summary
    );
    assert_eq!(typo.fixes[0].kind, "path-edit");
    let missing = findings
        .iter()
        .find(|f| f.code == "path-entries-missing")
        .expect("leftover entry");
    assert_eq!(missing.evidence[0].path.as_deref(), Some("/opt/gone/bin"));
}

#[test]
fn cuda_home_typo_and_xla_flags() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.dir("/usr/local/cuda/bin")
        .dir("/usr/local/cuda/nvvm/libdevice");
    m.env("CUDA_HOME", "/usr/local/cudaa")
        .env("XLA_FLAGS", "--xla_gpu_cuda_data_dir=/usr/local/cuda");
    let findings = check(&RuleInput::new(&m.context(), &Inventory::default()));
    let home = findings
        .iter()
        .find(|f| f.code == "cuda-env-var-missing-dir")
        .expect("CUDA_HOME finding");
    assert_eq!(home.fixes[0].summary, "Set CUDA_HOME to /usr/local/cuda");
    let xla = findings
        .iter()
        .find(|f| f.code == "xla-cuda-data-dir-incomplete")
        .expect("incomplete data dir");
    assert_eq!(xla.libraries, vec!["ptxas", "libdevice.10.bc"]);
    m.file("/usr/local/cuda/bin/ptxas", b"")
        .file("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc", b"");
    assert!(
        !codes(&check(&RuleInput::new(&m.context(), &Inventory::default())))
            .contains(&"xla-cuda-data-dir-incomplete")
    );
    m.env("XLA_FLAGS", "--xla_gpu_cuda_data_dir=/nowhere");
    assert!(
        codes(&check(&RuleInput::new(&m.context(), &Inventory::default())))
            .contains(&"xla-cuda-data-dir-missing")
    );
}

#[test]
fn two_toolkits_on_windows_path_and_cuda_path_disagreeing() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let v12 = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.1\bin";
    let v11 = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin";
    m.dir(v12).dir(v11).dir(r"C:\Windows\System32");
    m.env("Path", &format!("%SystemRoot%\\system32;{v12};{v11}"));
    m.env("SystemRoot", r"C:\Windows");
    m.env(
        "CUDA_PATH",
        r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8",
    );
    let findings = check(&RuleInput::new(&m.context(), &Inventory::default()));
    let multi = findings
        .iter()
        .find(|f| f.code == "multiple-toolkits-on-path")
        .expect("several toolkits");
    assert!(
        multi.summary.contains("CUDA 12.1, then CUDA 11.8"),
        "{}",
        multi.summary
    );
    assert!(codes(&findings).contains(&"cuda-path-mismatch"));
    assert!(
        !codes(&findings).iter().any(|c| c.starts_with("path-entr")),
        "%SystemRoot% expands: {findings:#?}"
    );
}

#[test]
fn linux_cuda_symlink_resolves_to_its_version() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.dir("/usr/local/cuda-12.4/bin")
        .dir("/usr/local/cuda-11.8/bin");
    std::os::unix::fs::symlink("/usr/local/cuda-11.8", m.host("/usr/local/cuda")).unwrap();
    m.env("PATH", "/usr/local/cuda/bin:/usr/local/cuda-12.4/bin");
    let findings = check(&RuleInput::new(&m.context(), &Inventory::default()));
    let multi = findings
        .iter()
        .find(|f| f.code == "multiple-toolkits-on-path")
        .expect("several toolkits");
    assert!(
        multi.summary.contains("CUDA 11.8, then CUDA 12.4"),
        "{}",
        multi.summary
    );
}

#[test]
fn a_clean_machine_has_no_environment_findings() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.dir("/usr/bin").dir("/usr/local/cuda-12.4/bin");
    m.env("PATH", "/usr/bin:/usr/local/cuda-12.4/bin")
        .env("CUDA_HOME", "/usr/local/cuda-12.4");
    assert!(check(&RuleInput::new(&m.context(), &Inventory::default())).is_empty());
}
