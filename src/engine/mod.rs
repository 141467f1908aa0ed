//! The diagnosis engine: no GUI and no CLI code in here. Front ends call [`api`] (the entry
//! points, the only part of the engine they name); everything flows one way: `SystemContext` →
//! scan → rules → findings → report (the layers are drawn in the crate's header, `lib.rs`).
//!
//! # Where to add …
//!
//! What each extension takes today — the file to write and every row elsewhere it needs. Where
//! that is more than one file and one row, the list says so; the compiler's exhaustive matches
//! find the arms a new enum variant is missing.
//!
//! * **A rule** (a family of findings): a file in `rules/` with a `check` function returning
//!   `Vec<Finding>`; its `pub mod` line and one `findings.extend(…::check(…))` line in
//!   [`rules::run_all`]; one `pub const` per code it emits in [`finding_codes`]. Optional: rows
//!   of `assets/knowledge/finding_docs.toml` for its "Docs:" links. Rules take what they read —
//!   `check(ctx)`, `check(inventory)`, `check(ctx, inventory)`; `closure::check` also takes the
//!   findings made before it — so there is no one rule signature yet.
//! * **A fix kind**: the variant of [`findings::FixKind`] and its `as_str` name (and, for a
//!   kind without data, its `From<&str>` arm), both in `findings.rs`; its operations in a module
//!   of `fix/` (as `copy.rs`, `dllhook.rs`) and one arm in [`fix::planner::plan`] calling it.
//!   Then, where the default does not fit: the scopes it can take in [`fix::session::scopes`]
//!   (default: user only), its own re-check in `fix::verify` (default: what was written read
//!   back, then a rescan), the packages or folders it names in `fix::names_exist`, and the
//!   wizard's `is_manual` (`ui/steps/fix.rs`) for a step only the user can take. A kind that
//!   writes something other than a file, a registry value or a package set also needs a
//!   [`fix::plan::Change`] variant with its apply, journal [`fix::journal::Target`] and undo.
//! * **A framework**: the variant of [`inventory::FrameworkKind`] with its `display_name` and
//!   `module` arms (`inventory.rs`); a reader in `scan/frameworks/` (as `cupy.rs`: distribution,
//!   version, CUDA build, `expects`), its `mod` line and one entry in the readers' list of
//!   `scan::frameworks::read_site_packages`; its rows, keyed by its module name, in
//!   `assets/knowledge/framework_loads.toml` (what its code opens at run time) and
//!   `framework_closure.toml`; the `gpu-test --framework` value in `cli/args.rs`
//!   (`FrameworkArg` and its `kind` arm). On Windows, a framework whose libraries are not loaded
//!   as Python extension modules also needs its arms in `graph::framework` (`windows_preset`,
//!   `windows_app_dir`, `process_label`), as ONNX Runtime has.
//! * **A report format**: a renderer file in `report/` (as `markdown.rs`) with its `mod` line;
//!   the variant of [`report::ReportFormat`] with its row in `ReportFormat::ALL` (the wizard's
//!   Save buttons) and its arms in `from_path`, `extension`, `label` and `render`
//!   (`report/format.rs`); the `--format` value in `cli/args.rs` and its arm in
//!   `cli::output::asked_format`; and what `report --compare` and `fleet` do with it
//!   (`cli/report_command.rs`, `cli/fleet_command.rs`: a renderer of their own, or a refusal).
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
