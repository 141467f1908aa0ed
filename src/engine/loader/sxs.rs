//! Side-by-side (SxS) redirection: the activation context a manifest builds. Each assembly a
//! manifest depends on is probed as Windows documents ("Assembly Searching Sequence"): a shared
//! assembly (one with a public key token) in the WinSxS store, `<Windows>\WinSxS\Manifests\
//! <arch>_<name>_<token>_<version>_<language>_<hash>.manifest` with its files in the folder of
//! the same name; otherwise a private assembly beside the application, `<app>\<name>.manifest`
//! or `<app>\<name>\<name>.manifest`. The DLL names the assembly's manifest lists are then
//! loaded from the assembly's folder before any other search step (after API sets, before
//! KnownDLLs). Publisher policy (version redirection) and culture-specific folders are not
//! modelled.

use super::Machine;
use crate::engine::binfmt::pe_manifest::{AssemblyRef, assembly_files};
use crate::engine::context::{Platform, SystemContext};
use serde::Serialize;

/// Where one assembly of a manifest was found, and what it redirects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ResolvedAssembly {
    #[serde(flatten)]
    pub identity: AssemblyRef,
    /// The assembly manifest found (`None`: the program would not start, error 14001).
    pub manifest: Option<String>,
    /// `winsxs` or `private`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// The DLLs it redirects, as full paths.
    pub files: Vec<String>,
    /// Every manifest path (or WinSxS pattern) looked at, in order.
    pub tried: Vec<String>,
}

/// The WinSxS spelling of a process machine.
fn sxs_arch(want: &Machine) -> &'static str {
    match (want.arch.as_str(), want.bits) {
        ("aarch64" | "arm64ec", _) => "arm64",
        (_, 32) => "x86",
        _ => "amd64",
    }
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// Probes `asm` for a process of machine `want` whose application folder is `app_dir`.
pub fn resolve(
    ctx: &SystemContext,
    windows_dir: &str,
    app_dir: Option<&str>,
    want: &Machine,
    asm: &AssemblyRef,
) -> ResolvedAssembly {
    let w = Platform::Windows;
    let mut out = ResolvedAssembly {
        identity: asm.clone(),
        manifest: None,
        store: None,
        files: Vec::new(),
        tried: Vec::new(),
    };
    let arch = match asm.arch.as_str() {
        "" | "*" => sxs_arch(want).to_string(),
        a => lower(a),
    };
    if let Some(token) = &asm.public_key_token {
        let language = match asm.language.as_deref() {
            None | Some("*") | Some("") => "none".to_string(),
            Some(l) => lower(l),
        };
        let stem = format!(
            "{arch}_{}_{}_{}_{language}_",
            lower(&asm.name),
            lower(token),
            asm.version
        );
        let manifests = w.join(&w.join(windows_dir, "WinSxS"), "Manifests");
        out.tried
            .push(w.join(&manifests, &format!("{stem}*.manifest")));
        let found = ctx.fs.read_dir(&manifests).ok().and_then(|entries| {
            entries.into_iter().find(|e| {
                let n = lower(&e.name);
                e.is_file && n.starts_with(&stem) && n.ends_with(".manifest")
            })
        });
        if let Some(entry) = found {
            let folder = w.join(
                &w.join(windows_dir, "WinSxS"),
                entry.name.trim_end_matches(".manifest"),
            );
            return finish(ctx, out, &entry.path, &folder, "winsxs");
        }
    }
    if let Some(app) = app_dir {
        let own = w.join(app, &asm.name);
        for manifest in [
            w.join(app, &format!("{}.manifest", asm.name)),
            w.join(&own, &format!("{}.manifest", asm.name)),
        ] {
            out.tried.push(manifest.clone());
            if ctx.fs.is_file(&manifest) {
                let folder = w.parent(&manifest).unwrap_or_default();
                return finish(ctx, out, &manifest, &folder, "private");
            }
        }
    }
    out
}

fn finish(
    ctx: &SystemContext,
    mut out: ResolvedAssembly,
    manifest: &str,
    folder: &str,
    store: &'static str,
) -> ResolvedAssembly {
    let w = Platform::Windows;
    let text = ctx
        .fs
        .read_bytes(manifest, 1 << 20)
        .map(|b| crate::engine::binfmt::pe_manifest::decode(&b))
        .unwrap_or_default();
    out.files = assembly_files(&text)
        .iter()
        .map(|f| w.join(folder, f))
        .collect();
    out.manifest = Some(manifest.to_string());
    out.store = Some(store.to_string());
    out
}

/// The file an activation context maps `name` to, if any.
pub fn redirect<'a>(assemblies: &'a [ResolvedAssembly], name: &str) -> Option<&'a str> {
    let w = Platform::Windows;
    assemblies
        .iter()
        .flat_map(|a| a.files.iter())
        .find(|f| w.file_name(f).eq_ignore_ascii_case(name))
        .map(String::as_str)
}
