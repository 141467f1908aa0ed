//! Finding Python environments: conda (base, `envs`, `~/.conda/environments.txt`,
//! CONDA_PREFIX), venv/virtualenv (pyvenv.cfg; VIRTUAL_ENV, PATH, the home folder two levels
//! deep, virtualenvwrapper/pipenv/poetry folders), pyenv, python.org installs, Microsoft Store
//! Python and the system Python. Reading them is [`super::python`]'s job.

use super::walker::Walker;
use crate::engine::context::Platform;
use crate::engine::inventory::PythonKind;
use std::path::PathBuf;

/// A folder that looks like a Python environment, before it is read.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub root: String,
    pub kind: PythonKind,
}

const CONDA_DIRS: &[&str] = &[
    "anaconda3",
    "miniconda3",
    "miniforge3",
    "mambaforge",
    "micromamba",
];
/// Home sub-folders not worth descending into when looking for venvs.
const SKIP_IN_HOME: &[&str] = &[
    "AppData",
    "node_modules",
    "snap",
    "Library",
    "go",
    "OneDrive",
];

/// Home folders of the machine's users.
pub fn homes(w: &mut Walker) -> Vec<String> {
    match w.platform() {
        Platform::Windows => w
            .list(r"C:\Users")
            .into_iter()
            .filter(|e| {
                e.is_dir
                    && !["Public", "Default", "Default User", "All Users"]
                        .contains(&e.name.as_str())
            })
            .map(|e| e.path)
            .collect(),
        Platform::Linux => {
            let mut h = vec!["/root".to_string()];
            h.extend(
                w.list("/home")
                    .into_iter()
                    .filter(|e| e.is_dir)
                    .map(|e| e.path),
            );
            h
        }
    }
}

/// Finds every candidate environment, deduplicated by the folder it really is.
pub fn discover(w: &mut Walker) -> Vec<Candidate> {
    let p = w.platform();
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |root: String, kind: PythonKind| {
        out.push(Candidate {
            root: p.normalize(&root),
            kind,
        })
    };
    for var in ["CONDA_PREFIX", "VIRTUAL_ENV"] {
        if let Some(v) = w.ctx.env.get(var) {
            push(v.trim().to_string(), PythonKind::Other);
        }
    }
    let homes = homes(w);
    let mut conda_roots: Vec<String> = Vec::new();
    for home in &homes {
        for d in CONDA_DIRS {
            conda_roots.push(p.join(home, d));
            if p == Platform::Windows {
                conda_roots.push(p.join(home, &format!(r"AppData\Local\{d}")));
            }
        }
    }
    match p {
        Platform::Windows => {
            for d in CONDA_DIRS {
                conda_roots.push(format!(r"C:\ProgramData\{d}"));
                conda_roots.push(format!(r"C:\{d}"));
                conda_roots.push(format!(r"C:\tools\{d}"));
            }
        }
        Platform::Linux => {
            conda_roots.push("/opt/conda".into());
            for d in CONDA_DIRS {
                conda_roots.push(format!("/opt/{d}"));
            }
        }
    }
    for root in conda_roots {
        if w.should_stop(&root) {
            break;
        }
        if w.is_dir(&p.join(&root, "conda-meta")) {
            push(root.clone(), PythonKind::CondaBase);
            for e in w.list(&p.join(&root, "envs")) {
                if e.is_dir {
                    push(e.path, PythonKind::CondaEnv);
                }
            }
        }
    }
    for home in &homes {
        let envs_txt = p.join(home, &p.normalize(".conda/environments.txt"));
        if let Some(text) = w.read_text(&envs_txt, 1 << 20) {
            for line in text.lines().map(str::trim).filter(|l| p.is_absolute(l)) {
                push(line.to_string(), PythonKind::CondaEnv);
            }
        }
        for e in w.list(&p.join(home, &p.normalize(".conda/envs"))) {
            if e.is_dir {
                push(e.path, PythonKind::CondaEnv);
            }
        }
        let pyenv = match p {
            Platform::Windows => p.join(home, r".pyenv\pyenv-win\versions"),
            Platform::Linux => p.join(home, ".pyenv/versions"),
        };
        for e in w.list(&pyenv) {
            if e.is_dir {
                push(e.path, PythonKind::Pyenv);
            }
        }
        for container in [
            ".virtualenvs",
            ".local/share/virtualenvs",
            ".cache/pypoetry/virtualenvs",
            "Envs",
        ] {
            for e in w.list(&p.join(home, &p.normalize(container))) {
                if e.is_dir {
                    push(e.path, PythonKind::Venv);
                }
            }
        }
        for venv in venvs_below(w, home) {
            push(venv, PythonKind::Venv);
        }
        if p == Platform::Windows {
            for e in w.list(&p.join(home, r"AppData\Local\Programs\Python")) {
                if e.is_dir && e.name.to_ascii_lowercase().starts_with("python") {
                    push(e.path, PythonKind::PythonOrg);
                }
            }
            for e in w.list(&p.join(home, r"AppData\Local\Microsoft\WindowsApps")) {
                if e.is_dir && e.name.starts_with("PythonSoftwareFoundation.Python.") {
                    push(e.path, PythonKind::MicrosoftStore);
                }
            }
        }
    }
    match p {
        Platform::Windows => {
            for parent in ["C:\\", r"C:\Program Files"] {
                for e in w.list(parent) {
                    if e.is_dir && e.name.to_ascii_lowercase().starts_with("python3") {
                        push(e.path, PythonKind::PythonOrg);
                    }
                }
            }
            for e in w.list(r"C:\Program Files\WindowsApps") {
                if e.is_dir && e.name.starts_with("PythonSoftwareFoundation.Python.") {
                    push(e.path, PythonKind::MicrosoftStore);
                }
            }
        }
        Platform::Linux => {
            for e in w.list("/usr/lib") {
                if e.is_dir && e.name.starts_with("python3.") {
                    push(e.path, PythonKind::System);
                }
            }
        }
    }
    let (py, sub) = match p {
        Platform::Windows => ("python.exe", "Scripts"),
        Platform::Linux => ("python3", "bin"),
    };
    for entry in w.ctx.path_entries() {
        if !p.is_absolute(&entry) || !w.is_file(&p.join(&entry, py)) {
            continue;
        }
        let entry = p.normalize(&entry);
        let root = if p.file_name(&entry).eq_ignore_ascii_case(sub) {
            p.parent(&entry)
        } else {
            Some(entry)
        };
        match root {
            Some(r) if r != "/usr" && r != "/" => push(r, PythonKind::Other),
            _ => {}
        }
    }
    dedupe(w, out)
}

/// Folders with a pyvenv.cfg directly below `home` or one level further, plus the
/// `.venv`/`venv`/`env` folder of each of those second-level folders.
fn venvs_below(w: &mut Walker, home: &str) -> Vec<String> {
    let p = w.platform();
    let mut out = Vec::new();
    for child in w.list(home) {
        if !child.is_dir {
            continue;
        }
        if w.is_file(&p.join(&child.path, "pyvenv.cfg")) {
            out.push(child.path);
            continue;
        }
        let hidden = child.name.starts_with('.') && child.name != ".venv";
        if hidden || SKIP_IN_HOME.contains(&child.name.as_str()) {
            continue;
        }
        for g in w.list(&child.path).into_iter().filter(|g| g.is_dir) {
            if w.is_file(&p.join(&g.path, "pyvenv.cfg")) {
                out.push(g.path);
                continue;
            }
            // ~/projects/<name>/.venv: the usual project layout, checked without listing.
            for name in [".venv", "venv", "env"] {
                let v = p.join(&g.path, name);
                if w.is_file(&p.join(&v, "pyvenv.cfg")) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Keeps one candidate per real folder; the most specific kind wins.
fn dedupe(w: &mut Walker, candidates: Vec<Candidate>) -> Vec<Candidate> {
    let mut seen: Vec<(PathBuf, Candidate)> = Vec::new();
    for mut c in candidates {
        if !w.is_dir(&c.root) {
            continue;
        }
        let Some(host) = w.host(&c.root) else {
            continue;
        };
        let key = std::fs::canonicalize(&host).unwrap_or(host);
        c.kind = classify(w, &c);
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, existing)) if existing.kind == PythonKind::Other => existing.kind = c.kind,
            Some(_) => {}
            None => seen.push((key, c)),
        }
    }
    seen.into_iter().map(|(_, c)| c).collect()
}

/// What a folder is, from its contents (pyvenv.cfg, conda-meta) and its path.
fn classify(w: &Walker, c: &Candidate) -> PythonKind {
    let p = w.platform();
    if c.root.contains("PythonSoftwareFoundation.Python.") {
        return PythonKind::MicrosoftStore;
    }
    if w.is_file(&p.join(&c.root, "pyvenv.cfg")) {
        return PythonKind::Venv;
    }
    if w.is_dir(&p.join(&c.root, "conda-meta")) {
        let base = w.is_dir(&p.join(&c.root, "condabin")) || w.is_dir(&p.join(&c.root, "envs"));
        return if base {
            PythonKind::CondaBase
        } else {
            PythonKind::CondaEnv
        };
    }
    c.kind
}
