//! The fleet model on hand-made machines: identical machines share a row, differing columns come
//! first, the minority value is marked, and each finding says where it was seen.

use super::facts::{FindingSeen, MachineFacts, finding_column};
use super::*;
use crate::engine::findings::Severity;

fn machine(label: &str, driver: &str, finding: Option<(&str, Severity)>) -> MachineFacts {
    let mut facts = BTreeMap::new();
    let fact = |rank, key: &str, title: &str| ColumnKey {
        kind: ColumnKind::Fact,
        rank,
        key: key.into(),
        title: title.into(),
    };
    facts.insert(fact(0, "platform", "Platform"), "linux".to_string());
    facts.insert(fact(1, "driver", "NVIDIA driver"), driver.to_string());
    let mut findings = BTreeMap::new();
    if let Some((code, severity)) = finding {
        findings.insert(
            code.to_string(),
            FindingSeen {
                severity,
                summary: format!("{code} here"),
            },
        );
    }
    MachineFacts {
        label: label.into(),
        path: format!("{label}.json"),
        facts,
        findings,
    }
}

#[test]
fn the_odd_machine_stands_out() {
    let mut machines: Vec<MachineFacts> = (1..=5)
        .map(|i| machine(&format!("node0{i}"), "550.54", None))
        .collect();
    machines.push(machine(
        "node06",
        "535.104",
        Some(("library-missing", Severity::Error)),
    ));
    let fleet = build(&machines);
    assert_eq!(fleet.machines, 6);
    assert_eq!(fleet.rows.len(), 2, "{fleet:#?}");
    assert_eq!(fleet.rows[0].members.len(), 5);
    assert_eq!(fleet.rows[1].members, vec!["node06".to_string()]);
    // Differing columns first: the driver, then the finding; the platform is shared.
    let keys: Vec<&str> = fleet.columns.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["driver", "finding:library-missing", "platform"]);
    assert_eq!(fleet.columns[0].majority.as_deref(), Some("550.54"));
    assert!(fleet.rows[1].cells[0].minority && !fleet.rows[0].cells[0].minority);
    assert!(
        fleet.rows[1].cells[1].minority,
        "the finding is the minority"
    );
    assert!(!fleet.rows[1].cells[2].minority);
    assert!(fleet.has_error() && fleet.rows[1].has_error && !fleet.rows[0].has_error);
    let spread = &fleet.findings[0];
    assert_eq!((spread.count, spread.total), (1, 6));
    assert_eq!(
        render::spread_line(spread),
        "error library-missing on 1 of 6 machine(s): node06"
    );
    let text = render_text(&fleet);
    assert!(text.contains("NVIDIA driver: ≠ 535.104"), "{text}");
    assert!(text.contains("Platform: linux"), "{text}");
    let md = render_markdown(&fleet);
    assert!(
        md.contains("| node06 (1) | **≠ 535.104** | **≠ error** |"),
        "{md}"
    );
}

#[test]
fn a_finding_on_every_machine_is_shared_and_names_are_shortened() {
    let machines: Vec<MachineFacts> = (1..=20)
        .map(|i| {
            machine(
                &format!("n{i:02}"),
                "550.54",
                Some(("no-nvidia-driver", Severity::Error)),
            )
        })
        .collect();
    let fleet = build(&machines);
    assert_eq!(fleet.rows.len(), 1);
    assert!(fleet.columns.iter().all(|c| !c.differs));
    assert_eq!(
        render::names(&fleet.rows[0].members),
        "n01, n02, n03, n04, n05, n06, n07, n08, n09, n10, n11, n12, … (8 more)"
    );
    assert_eq!(
        fleet
            .columns
            .iter()
            .find(|c| c.key == finding_column("no-nvidia-driver").key)
            .unwrap()
            .majority
            .as_deref(),
        Some("error")
    );
}

#[test]
fn html_escapes_what_machines_report() {
    let fleet = build(&[
        machine("<b>x</b>", "1", None),
        machine("y", "<script>", None),
    ]);
    let html = render_html(&fleet);
    assert!(
        !html.contains("<script>") && html.contains("&lt;script&gt;"),
        "{html}"
    );
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
}

#[test]
fn no_reports_build_an_empty_view() {
    let fleet = build(&[]);
    assert_eq!((fleet.machines, fleet.rows.len()), (0, 0));
    assert!(!fleet.has_error());
    assert!(render_text(&fleet).starts_with("0 machine(s) in 0 group(s)"));
}

#[test]
fn repeated_values_are_counted_so_a_missing_gpu_shows() {
    assert_eq!(
        facts::counted(vec![
            "A100 (8.0)".into(),
            "T4 (7.5)".into(),
            "A100 (8.0)".into()
        ]),
        "2 × A100 (8.0); T4 (7.5)"
    );
    assert_eq!(facts::counted(vec!["12.4.1".into()]), "12.4.1");
    assert_eq!(facts::counted(Vec::new()), "");
}
