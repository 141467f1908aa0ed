//! The pasted-error triage behind the Welcome step's box: the text is triaged and checked
//! against the machine on a worker thread (`worker::start_explain`, started by the app); the
//! result is a document whose findings the Findings step shows above the scan's.

use super::worker::Job;
use crate::engine::api::Report;

/// The paste box's text, its running triage and the last result.
#[derive(Default)]
pub struct PasteState {
    pub text: String,
    pub job: Option<Job<Report>>,
    pub result: Option<Report>,
    pub error: Option<String>,
}

impl PasteState {
    /// Takes a finished job's result: `Some(true)` when one arrived, `None` while running.
    pub fn poll(&mut self) -> Option<bool> {
        let outcome = self.job.as_ref()?.poll()?;
        self.job = None;
        match outcome {
            Ok(doc) => {
                self.result = Some(doc);
                Some(true)
            }
            Err(e) => {
                self.error = Some(super::worker::failure_text(&e));
                Some(false)
            }
        }
    }

    /// The library files the last pasted text named (wildcard names left out), for the
    /// Dependencies step to offer.
    pub fn named_files(&self) -> Vec<String> {
        let identified = self.result.as_ref().and_then(|r| r.identified.as_ref());
        let mut names: Vec<String> = identified
            .into_iter()
            .flatten()
            .map(|i| i.file.clone())
            .filter(|f| !f.contains('*'))
            .collect();
        names.dedup();
        names
    }
}
