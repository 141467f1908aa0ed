//! The diagnosis engine: no GUI and no CLI code in here. Front ends call [`api`] (the entry
//! points, the only part of the engine they name); everything flows one way: `SystemContext` →
//! scan → rules → findings → report (the layers are drawn in the crate's header, `lib.rs`).
//!
//! # Where to add …
//!
//! Each extension is a file and its row in one table; the compiler's exhaustive matches find any
//! arm a new enum variant is still missing.
//!
//! * **A rule** (a family of findings): a file in `rules/` with
//!   `pub fn check(input: &RuleInput) -> Vec<Finding>` ([`rules::RuleInput`]: the context, the
//!   inventory and the findings of the rules before it), its `pub mod` line, and its row in
//!   [`rules::RULES`] (the order they run in; `closure` stays last). Each code it emits is one
//!   `NAME = "code",` row of the `finding_codes!` table in [`finding_codes`] (which makes the
//!   constant and its entry in `finding_codes::ALL`). Optional: rows of
//!   `assets/knowledge/finding_docs.toml` for its "Docs:" links.
//! * **A fix kind**: the variant of [`findings::FixKind`] (its parameters are the JSON keys beside
//!   `"kind"`) with its `as_str` name; a module in `fix/kinds/` implementing
//!   [`fix::kinds::KindModule`] — its plan (the defaults: a step only the user takes), the scopes
//!   `fix list` offers, what verification re-checks beyond reading back what was written and
//!   rescanning, the packages and folders it names (which `fix::names_exist` checks), whether it
//!   is manual (the wizard asks `FixKind::is_manual`) — and its arm in [`fix::kinds::module`].
//!   Its operations go in their own file of `fix/` where they are more than a few lines (as
//!   `copy.rs`, `dllhook.rs`). A kind that writes something other than a file, a registry value
//!   or a package set also needs a [`fix::plan::Change`] variant with its apply, journal
//!   [`fix::journal::Target`] and undo.
//! * **A framework**: the variant of [`inventory::FrameworkKind`], a reader in
//!   `scan/frameworks/` (as `cupy.rs`: distribution, version, CUDA build, `expects`) with its
//!   `mod` line, and its descriptor row in `scan/frameworks/specs.rs` (`FrameworkKind::spec`:
//!   display name, module name, how its process loads on Windows, the reader; and its place in
//!   `FrameworkKind::ALL`, the order the readers run and `gpu-test --framework` lists, whose
//!   value is the module name). Its rows, keyed by its module name, in
//!   `assets/knowledge/framework_loads.toml` (what its code opens at run time) and
//!   `framework_closure.toml`.
//! * **A report format**: a renderer file in `report/` (as `markdown.rs`) with its `mod` line,
//!   and the variant of [`report::ReportFormat`] with its place in `ReportFormat::ALL` and its
//!   descriptor row in `ReportFormat::spec` (label, file extensions, renderer; `report/format.rs`).
//!   The wizard's Save buttons and the CLI's `--format` values (the first extension, the others
//!   as aliases) come from `ALL`. `report --compare` and `fleet` render other documents: their
//!   matches on the format (`cli/report_command.rs`, `cli/fleet_command.rs`) get a renderer of
//!   their own or a refusal.
//!
//! # State
//!
//! The engine keeps no mutable state of its own between calls: what a call depends on is
//! handed in. The environment this computer is diagnosed in after a fix is the caller's — the
//! wizard keeps it in its [`api::Source`] (`session`), a loaded context carries it on to the
//! programs it starts (`SystemContext::session`, `gpu::runner::Options::session`). What a report
//! records of a machine's files and binaries, and a reopened report's answers, belong to that
//! context's file view (`FsView`, its `FileCache`'s `BinaryRecord`), so two captures, or a capture
//! and a reopened report, in one process never see each other. Process-wide are only immutable
//! caches filled once (`OnceLock`: compiled patterns, the knowledge tables) and the counter that
//! numbers replays' synthetic folders.

pub mod api;
pub mod atomic_file;
pub mod binfmt;
pub mod context;
pub mod diagnosis;
pub mod error;
pub mod finding_codes;
pub mod findings;
pub mod fix;
pub mod gpu;
pub mod graph;
pub mod inventory;
pub mod knowledge;
pub mod loader;
pub mod progress;
pub mod report;
pub mod rules;
pub mod scan;
pub mod static_regex;
pub mod suggest;
pub mod triage;

pub use error::Error;
