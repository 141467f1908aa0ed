//! The child's progress protocol: on standard error, lines that start with [`PREFIX`] carry one
//! JSON event (a stage started, a sensor sample); any other line is ordinary diagnostic text
//! (a loader message, an abort message) that the parent keeps for the report. Standard output
//! holds only the final JSON result.

use super::results::SensorSample;
use serde::{Deserialize, Serialize};

/// Marks a protocol line on the child's standard error.
pub const PREFIX: &str = "@cuda-triage ";

/// One event from the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A step of the test started: `done` of `total` steps are finished.
    Progress {
        stage: String,
        done: usize,
        total: usize,
    },
    Sensors(SensorSample),
}

/// The line the child writes for an event (without the newline).
pub fn format(event: &Event) -> String {
    let json = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_string());
    format!("{PREFIX}{json}")
}

/// A parsed line of the child's standard error.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Event(Event),
    /// Ordinary text (also a protocol line whose JSON did not parse).
    Text(String),
}

pub fn parse(line: &str) -> Line {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    match trimmed.strip_prefix(PREFIX) {
        Some(json) => match serde_json::from_str::<Event>(json) {
            Ok(event) => Line::Event(event),
            Err(_) => Line::Text(trimmed.to_string()),
        },
        None => Line::Text(trimmed.to_string()),
    }
}

/// Writes an event to standard error (the child side).
pub fn emit(event: &Event) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", format(event));
    let _ = err.flush();
}

/// Convenience for the child: announces a stage.
pub fn progress(stage: &str, done: usize, total: usize) {
    emit(&Event::Progress {
        stage: stage.to_string(),
        done,
        total,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_a_line() {
        let events = [
            Event::Progress {
                stage: "GEMM fp16 4096".into(),
                done: 3,
                total: 20,
            },
            Event::Sensors(SensorSample {
                t_s: 1.5,
                temperature_c: Some(61),
                power_w: Some(250.5),
                sm_clock_mhz: None,
            }),
        ];
        for e in events {
            let line = format(&e);
            assert!(line.starts_with(PREFIX));
            assert!(!line.contains('\n'));
            assert_eq!(parse(&format!("{line}\r\n")), Line::Event(e));
        }
    }

    #[test]
    fn other_lines_are_text() {
        assert_eq!(
            parse("libcuda.so.1: cannot open shared object file\n"),
            Line::Text("libcuda.so.1: cannot open shared object file".into())
        );
        assert_eq!(
            parse("@cuda-triage {not json"),
            Line::Text("@cuda-triage {not json".into())
        );
        assert_eq!(parse(""), Line::Text(String::new()));
    }
}
