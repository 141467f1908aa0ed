//! `driver_presence::check`: `no-nvidia-driver` when the context has no NVIDIA driver (Windows and Linux
//! library names, WSL advice, where the absence was learned), nothing when a driver is present.

use super::only;
use crate::engine::context::fake::FakeMachine;
use crate::engine::context::{ContextSource, Platform};
use crate::engine::findings::Severity;
use crate::engine::inventory::Inventory;
use crate::engine::rules::RuleInput;
use crate::engine::rules::driver_presence::check;

#[test]
fn windows_without_driver_names_nvcuda_and_nvml() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.dir(r"C:\Windows\System32")
        .env("PATH", r"C:\Windows\System32");
    let findings = check(&RuleInput::new(&m.context(), &Inventory::default()));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "no-nvidia-driver");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.libraries, ["nvcuda.dll", "nvml.dll"]);
    assert!(f.detail.contains("nvcuda.dll"), "{}", f.detail);
    assert!(!f.detail.contains("WSL"), "not WSL: {}", f.detail);
    // A machine file without [driver]: the evidence says where the absence comes from.
    assert_eq!(f.evidence.len(), 1, "{f:#?}");
    assert_eq!(f.evidence[0].kind, "driver");
    assert_eq!(
        f.evidence[0].text,
        "the machine file has no [driver] section"
    );
    assert!(f.fixes.is_empty(), "the rule attaches no fix: {f:#?}");
}

#[test]
fn linux_without_driver_names_libcuda_and_libnvidia_ml() {
    let m = FakeMachine::new(Platform::Linux).unwrap();
    let findings = check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&findings, "no-nvidia-driver");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.libraries, ["libcuda.so.1", "libnvidia-ml.so.1"]);
    assert!(f.detail.contains("libcuda.so.1"), "{}", f.detail);
}

#[test]
fn wsl_without_driver_points_at_the_windows_driver_and_keeps_the_nvml_note() {
    let m = FakeMachine::new(Platform::Linux).unwrap();
    let mut ctx = m.context();
    ctx.wsl = true;
    ctx.source = ContextSource::Live;
    ctx.driver_note = Some("NVML: libnvidia-ml.so.1 not found".into());
    let findings = check(&RuleInput::new(&ctx, &Inventory::default()));
    let f = only(&findings, "no-nvidia-driver");
    assert!(f.detail.contains("/usr/lib/wsl/lib"), "{}", f.detail);
    assert!(
        f.detail
            .contains("do not install a Linux driver inside WSL"),
        "{}",
        f.detail
    );
    let texts: Vec<&str> = f.evidence.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        ["NVML on this machine", "NVML: libnvidia-ml.so.1 not found"]
    );
}

#[test]
fn saved_report_without_driver_says_the_report_records_none() {
    let m = FakeMachine::new(Platform::Windows).unwrap();
    let mut ctx = m.context();
    ctx.source = ContextSource::Report("old.json".into());
    let findings = check(&RuleInput::new(&ctx, &Inventory::default()));
    let f = only(&findings, "no-nvidia-driver");
    assert_eq!(f.evidence[0].text, "the saved report records no driver");
}

#[test]
fn healthy_machines_with_a_driver_get_nothing() {
    let mut w = FakeMachine::new(Platform::Windows).unwrap();
    w.driver("546.33", "12.3");
    assert!(check(&RuleInput::new(&w.context(), &Inventory::default())).is_empty());
    let mut l = FakeMachine::new(Platform::Linux).unwrap();
    l.driver("550.54.15", "12.4");
    let mut ctx = l.context();
    ctx.wsl = true;
    assert!(
        check(&RuleInput::new(&ctx, &Inventory::default())).is_empty(),
        "a WSL machine with a driver is fine"
    );
}
