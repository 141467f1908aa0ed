//! Dependencies step: choose a binary (path field, file dialog, drag-and-drop, or one the scan
//! suggests, which also presets the process that loads it), have its dependency tree built on a
//! worker thread (cancellable; the app starts it), and browse it — a virtualised tree that stays smooth with thousands of nodes,
//! a search box, an "only problems" switch and a details panel.

use super::UiCommand;
use super::dependency_details::details_ui;
use crate::engine::api::graph::{self, DependencyGraph, GraphOptions, Preset, preset_label};
use crate::engine::api::{BinarySuggestion, Finding, Platform, SystemContext, TreeRequest};
use crate::ui::tree_rows::{Row, RowFilter, is_problem, visible_rows};
use crate::ui::worker::Job;
use crate::ui::{glossary, theme};

const ROW_HEIGHT: f32 = 20.0;
const INDENT: f32 = 16.0;

/// A finished tree and what the rules made of it.
pub struct TreeResult {
    pub ctx: SystemContext,
    pub graph: DependencyGraph,
    pub findings: Vec<Finding>,
}

/// The step's own state (its text fields are edited in place; actions go through commands).
#[derive(Default)]
pub struct DependenciesState {
    pub binary_input: String,
    pub preset: Option<Preset>,
    /// The process a suggestion chose (its words and options); replaces `preset` while set.
    pub process: Option<(String, GraphOptions)>,
    /// What the last scan suggests analysing.
    pub suggestions: Vec<BinarySuggestion>,
    /// The tree being built (`None` inside once cancelled).
    pub job: Option<Job<Option<TreeResult>>>,
    pub result: Option<TreeResult>,
    pub error: Option<String>,
    pub filter: RowFilter,
    pub selected: Option<usize>,
    /// Every tree built in this session: root and its nodes as JSON (for the report).
    pub examined: Vec<(String, serde_json::Value)>,
    rows: Vec<Row>,
    rows_for: Option<RowFilter>,
}

impl DependenciesState {
    /// Takes `binary` (a machine path or a bare name) as the one to analyse and returns the
    /// request for its tree in the chosen process; the app starts the job.
    pub fn request(&mut self, binary: String) -> TreeRequest {
        self.binary_input = binary.clone();
        self.error = None;
        self.selected = None;
        self.rows_for = None;
        let options = match &self.process {
            Some((_, opts)) => opts.clone(),
            None => {
                let mut opts = GraphOptions::default();
                opts.windows.preset = self.preset;
                opts
            }
        };
        TreeRequest {
            binary,
            options,
            ..TreeRequest::default()
        }
    }

    /// Chooses suggestion `index` and its process; the request for its tree, if there is one.
    pub fn request_suggestion(&mut self, index: usize) -> Option<TreeRequest> {
        let s = self.suggestions.get(index)?;
        self.process = Some((s.process.clone(), s.options.clone()));
        self.preset = s.options.windows.preset;
        let path = s.path.clone();
        Some(self.request(path))
    }

    /// Takes a finished job's result in; the status line to show once it has finished.
    pub fn poll(&mut self) -> Option<String> {
        let outcome = self.job.as_ref()?.poll()?;
        self.job = None;
        Some(match outcome {
            Ok(Some(result)) => {
                // Every tree the user examined goes into the report (the latest per root).
                let nodes = serde_json::to_value(&result.graph.nodes).unwrap_or_default();
                self.examined.retain(|(root, _)| *root != result.graph.root);
                self.examined.push((result.graph.root.clone(), nodes));
                let status = format!(
                    "Dependency tree of {}: {} libraries.",
                    result.graph.root,
                    result.graph.nodes.len()
                );
                self.result = Some(result);
                status
            }
            Ok(None) => "Dependency tree cancelled.".into(),
            Err(e) => {
                let e = crate::ui::worker::failure_text(&e);
                let status = format!("Could not build the dependency tree: {e}");
                self.error = Some(e);
                status
            }
        })
    }

    fn rows(&mut self) -> &[Row] {
        if self.rows_for.as_ref() != Some(&self.filter) {
            self.rows = self
                .result
                .as_ref()
                .map(|r| visible_rows(&r.graph, &self.filter))
                .unwrap_or_default();
            self.rows_for = Some(self.filter.clone());
        }
        &self.rows
    }
}

pub fn dependencies_ui(
    ui: &mut egui::Ui,
    state: &mut DependenciesState,
    offered: &Offered,
    commands: &mut Vec<UiCommand>,
) {
    ui.heading("Dependencies");
    ui.label("Every library a DLL, .so or executable loads, where each one resolved, and why.");
    suggestions_ui(ui, state, offered, commands);
    ui.horizontal(|ui| {
        let label = ui.label("Binary:");
        let edit = ui
            .add(
                egui::TextEdit::singleline(&mut state.binary_input)
                    .hint_text("a path on the diagnosed machine, or a bare name (cublas64_11.dll)")
                    .desired_width(420.0),
            )
            .labelled_by(label.id);
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui.button("Browse…").clicked() {
            commands.push(UiCommand::BrowseBinary);
        }
        let busy = state.job.is_some();
        if (ui
            .add_enabled(!busy, egui::Button::new("Analyze"))
            .clicked()
            || enter)
            && !state.binary_input.trim().is_empty()
        {
            commands.push(UiCommand::AnalyzeBinary(
                state.binary_input.trim().to_string(),
            ));
        }
    });
    context_ui(ui, state, offered.platform);
    if state.job.is_some() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Resolving dependencies…");
            if ui.button("Cancel").clicked() {
                commands.push(UiCommand::CancelTree);
            }
        });
        return;
    }
    if let Some(e) = &state.error {
        ui.colored_label(
            theme::severity_colour(ui, crate::engine::api::Severity::Error),
            e,
        );
    }
    if state.result.is_none() {
        return;
    }
    summary_ui(ui, state);
    ui.horizontal(|ui| {
        let label = ui.label("Search:");
        ui.add(egui::TextEdit::singleline(&mut state.filter.search).desired_width(220.0))
            .labelled_by(label.id);
        ui.checkbox(&mut state.filter.only_problems, "Only problems");
    });
    ui.separator();
    egui::Panel::right("dependency_details")
        .default_size(340.0)
        .max_size((ui.available_width() * 0.55).max(340.0))
        .resizable(true)
        .show(ui, |ui| match (state.selected, &state.result) {
            (Some(index), Some(result)) => details_ui(ui, result, index, commands),
            _ => {
                ui.label("Select a library to see where it was found and what was tried.");
            }
        });
    tree_ui(ui, state, commands);
}

/// What the step can offer besides a path typed in.
pub struct Offered {
    /// Whether a scan ran (its suggestions are then all there is to suggest).
    pub scanned: bool,
    /// The library files a pasted error named.
    pub pasted: Vec<String>,
    /// The diagnosed machine's platform (a Linux machine has one loader, no Windows contexts).
    pub platform: Option<Platform>,
}

/// The binaries the scan says matter, one click each (the process that loads it comes along),
/// and the libraries a pasted error named (searched for as the machine's loader would).
fn suggestions_ui(
    ui: &mut egui::Ui,
    state: &DependenciesState,
    offered: &Offered,
    commands: &mut Vec<UiCommand>,
) {
    if !offered.pasted.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.label("Named in the text you pasted:");
            for name in &offered.pasted {
                if ui
                    .button(name)
                    .on_hover_text(
                        "Build its tree: found where the diagnosed machine's loader would find it",
                    )
                    .clicked()
                {
                    commands.push(UiCommand::AnalyzeBinary(name.clone()));
                }
            }
        });
    }
    if state.suggestions.is_empty() {
        let text = if offered.scanned {
            "The scan found no CUDA framework, toolkit or cuDNN library to suggest: pick a binary \
             below (a program, DLL or .so that fails to load)."
        } else {
            "After a scan, the libraries that matter on the machine are suggested here."
        };
        ui.label(egui::RichText::new(text).weak());
        return;
    }
    egui::CollapsingHeader::new(format!(
        "Suggested by the scan ({})",
        state.suggestions.len()
    ))
    .default_open(true)
    .show(ui, |ui| {
        egui::ScrollArea::vertical()
            .id_salt("suggestions")
            .max_height(132.0)
            .show(ui, |ui| {
                for (i, s) in state.suggestions.iter().enumerate() {
                    ui.horizontal(|ui| {
                        let hover =
                            format!("{}.\nPath: {}\nLoaded by: {}", s.why, s.path, s.process);
                        if ui.button(&s.label).on_hover_text(hover).clicked() {
                            commands.push(UiCommand::AnalyzeSuggestion(i));
                        }
                        super::findings::copy_button(ui, &s.path, commands);
                        ui.add(egui::Label::new(egui::RichText::new(&s.path).weak()).truncate());
                    });
                }
            });
    });
}

/// The process the tree is built in: a suggestion's, or a Windows loading context chosen here
/// (a Linux machine's is ld.so's one search order).
fn context_ui(ui: &mut egui::Ui, state: &mut DependenciesState, platform: Option<Platform>) {
    ui.horizontal(|ui| {
        let label = ui.label("Loading context:");
        if let Some((words, _)) = &state.process {
            let reset = ui.small_button("Use the standard search").clicked();
            ui.add(egui::Label::new(words.as_str()).truncate());
            if reset {
                state.process = None;
                state.preset = None;
            }
            return;
        }
        if platform == Some(Platform::Linux) {
            ui.add(
                egui::Label::new(
                    "Linux: ld.so (RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default folders)",
                )
                .truncate(),
            )
            .labelled_by(label.id);
            return;
        }
        egui::ComboBox::from_id_salt("loading_context")
            .selected_text(format!("Windows: {}", preset_label(state.preset)))
            .show_ui(ui, |ui| {
                for p in [
                    None,
                    Some(Preset::Python),
                    Some(Preset::CondaPython),
                    Some(Preset::Torch),
                ] {
                    ui.selectable_value(&mut state.preset, p, preset_label(p));
                }
            })
            .response
            .labelled_by(label.id);
    });
}

fn summary_ui(ui: &mut egui::Ui, state: &DependenciesState) {
    let Some(result) = &state.result else { return };
    let problems = result.graph.nodes.iter().filter(|n| is_problem(n)).count();
    let problems = match problems {
        0 => "no problems".to_string(),
        n => format!("{n} with problems"),
    };
    ui.label(format!(
        "{}: {} libraries, {problems}",
        result.graph.root,
        result.graph.nodes.len()
    ));
    for finding in &result.findings {
        let colour = theme::severity_colour(ui, finding.severity);
        ui.colored_label(
            colour,
            format!(
                "{} {}",
                theme::severity_symbol(finding.severity),
                finding.summary
            ),
        );
    }
}

fn tree_ui(ui: &mut egui::Ui, state: &mut DependenciesState, commands: &mut Vec<UiCommand>) {
    let rows = state.rows().to_vec();
    let selected = state.selected;
    let Some(result) = &state.result else { return };
    let platform = result.ctx.platform;
    egui::ScrollArea::both()
        .auto_shrink([false, false])
        .show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
            for row in &rows[range] {
                let node = &result.graph.nodes[row.node];
                ui.horizontal(|ui| {
                    ui.add_space(row.level as f32 * INDENT);
                    if row.has_children {
                        let collapsed = state.filter.collapsed.contains(&row.node);
                        if ui
                            .small_button(if collapsed { "+" } else { "-" })
                            .on_hover_text("Expand or collapse")
                            .clicked()
                        {
                            commands.push(UiCommand::ToggleDependency(row.node));
                        }
                    } else {
                        ui.add_space(18.0);
                    }
                    let colour = if is_problem(node) {
                        theme::severity_colour(ui, crate::engine::api::Severity::Error)
                    } else {
                        ui.visuals().text_color()
                    };
                    let text = egui::RichText::new(&node.name).color(colour);
                    if ui
                        .selectable_label(selected == Some(row.node), text)
                        .clicked()
                    {
                        commands.push(UiCommand::SelectDependency(row.node));
                    }
                    let note = ui.label(egui::RichText::new(row_note(node, platform)).weak());
                    if let Some(explanation) = glossary::explain_how(node.how.as_str()) {
                        note.on_hover_text(explanation);
                    }
                });
            }
        });
}

/// The short note after a name: how it resolved, or that it is missing.
fn row_note(node: &graph::Node, platform: Platform) -> String {
    match &node.path {
        Some(path) => format!(
            "[{}] {}",
            node.how.as_str(),
            platform.parent(path).unwrap_or_default()
        ),
        None if node.is_resolved() => format!("[{}]", node.how.as_str()),
        None => format!("not found ({} places tried)", node.attempts.len()),
    }
}
