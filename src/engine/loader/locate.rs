//! Where else on the machine a file of a given name exists: for a missing library, the copies
//! the loader did not look at. Searches PATH / LD_LIBRARY_PATH, directories the caller already
//! knows (where the rest of the tree resolved) and common CUDA / cuDNN / conda / pip install
//! roots, with `*` expanded one directory level at a time — bounded, never a full disk walk.

use super::glob_match;
use crate::engine::context::{Platform, SystemContext};

/// Most directories looked into for one name.
const MAX_DIRS: usize = 600;

const WINDOWS_ROOTS: &[&str] = &[
    r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\*\bin",
    r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\*\bin\x64",
    r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\*\extras\CUPTI\lib64",
    r"C:\Program Files\NVIDIA\CUDNN\*\bin",
    r"C:\Program Files\NVIDIA\CUDNN\*\bin\*",
    r"C:\Program Files\NVIDIA\CUDNN\*\bin\*\x64",
    r"C:\Windows\System32",
    r"C:\Windows\SysWOW64",
    r"%CONDA_PREFIX%\Library\bin",
    r"%CONDA_PREFIX%\Lib\site-packages\nvidia\*\bin",
    r"%CONDA_PREFIX%\Lib\site-packages\torch\lib",
    r"%VIRTUAL_ENV%\Lib\site-packages\nvidia\*\bin",
    r"%VIRTUAL_ENV%\Lib\site-packages\torch\lib",
    r"%USERPROFILE%\anaconda3\Library\bin",
    r"%USERPROFILE%\miniconda3\Library\bin",
    r"%USERPROFILE%\anaconda3\envs\*\Library\bin",
    r"%USERPROFILE%\miniconda3\envs\*\Library\bin",
    r"%LOCALAPPDATA%\Programs\Python\*\Lib\site-packages\nvidia\*\bin",
    r"%LOCALAPPDATA%\Programs\Python\*\Lib\site-packages\torch\lib",
];

const LINUX_ROOTS: &[&str] = &[
    "/usr/local/cuda*/lib64",
    "/usr/local/cuda*/targets/*/lib",
    "/usr/local/cuda*/extras/CUPTI/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/wsl/lib",
    "/opt/conda/lib",
    "/opt/conda/envs/*/lib",
    "$CONDA_PREFIX/lib",
    "$CONDA_PREFIX/lib/python3*/site-packages/nvidia/*/lib",
    "$CONDA_PREFIX/lib/python3*/site-packages/torch/lib",
    "$VIRTUAL_ENV/lib/python3*/site-packages/nvidia/*/lib",
    "$VIRTUAL_ENV/lib/python3*/site-packages/torch/lib",
    "$HOME/miniconda3/lib",
    "$HOME/anaconda3/lib",
    "$HOME/miniconda3/envs/*/lib",
    "$HOME/.local/lib/python3*/site-packages/nvidia/*/lib",
    "/usr/local/lib/python3*/dist-packages/nvidia/*/lib",
    "/usr/lib/python3/dist-packages/nvidia/*/lib",
];

/// Substitutes `%VAR%` / `$VAR` at the start of a root; `None` when the variable is unset.
fn substitute(ctx: &SystemContext, root: &str) -> Option<String> {
    let (var, rest) = if let Some(r) = root.strip_prefix('%') {
        r.split_once('%')?
    } else if let Some(r) = root.strip_prefix('$') {
        r.split_once('/')?
    } else {
        return Some(root.to_string());
    };
    let value = ctx.env.get(var).filter(|v| !v.is_empty())?;
    let sep = ctx.platform.separator();
    Some(format!(
        "{}{sep}{}",
        value.trim_end_matches(['/', '\\']),
        rest.trim_start_matches(['/', '\\'])
    ))
}

/// Expands `*` components against the machine's directories, up to `budget` results.
fn expand(ctx: &SystemContext, pattern: &str, budget: usize) -> Vec<String> {
    let p = ctx.platform;
    let normalized = p.normalize(pattern);
    let (prefix, rest) = match (p, normalized.get(..3), normalized.get(3..)) {
        (Platform::Windows, Some(drive), Some(rest)) => (drive.to_string(), rest),
        (Platform::Windows, _, _) => return Vec::new(),
        _ => ("/".to_string(), normalized.trim_start_matches('/')),
    };
    let mut current = vec![prefix];
    for part in rest.split(p.separator()).filter(|s| !s.is_empty()) {
        let mut next = Vec::new();
        for dir in &current {
            if part.contains(['*', '?']) {
                if let Ok(entries) = ctx.fs.read_dir(dir) {
                    next.extend(
                        entries
                            .into_iter()
                            .filter(|e| e.is_dir && glob_match(part, &e.name, p.case_insensitive()))
                            .map(|e| e.path),
                    );
                }
            } else {
                next.push(p.join(dir, part));
            }
            if next.len() >= budget {
                break;
            }
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    current.retain(|d| ctx.fs.is_dir(d));
    current
}

/// Every file named `name` in the searched directories (machine paths, first-seen order).
pub fn locate(ctx: &SystemContext, name: &str, known_dirs: &[String]) -> Vec<String> {
    Locator::new(ctx, known_dirs).find(ctx, name)
}

/// The folders `locate` looks in, worked out once (install roots expanded, duplicates and
/// relative entries dropped) so that many names can be looked up without expanding them again.
pub struct Locator {
    dirs: Vec<String>,
}

impl Locator {
    /// `known_dirs`, then PATH (and LD_LIBRARY_PATH on Linux), then the platform's install roots.
    pub fn new(ctx: &SystemContext, known_dirs: &[String]) -> Locator {
        let p = ctx.platform;
        let mut dirs: Vec<String> = known_dirs.to_vec();
        dirs.extend(ctx.path_entries());
        if p == Platform::Linux
            && let Some(llp) = ctx.env.get("LD_LIBRARY_PATH")
        {
            dirs.extend(p.split_list(llp));
        }
        let roots = match p {
            Platform::Windows => WINDOWS_ROOTS,
            Platform::Linux => LINUX_ROOTS,
        };
        for root in roots {
            if dirs.len() >= MAX_DIRS {
                break;
            }
            if let Some(pattern) = substitute(ctx, root) {
                dirs.extend(expand(ctx, &pattern, MAX_DIRS - dirs.len()));
            }
        }
        let mut seen = std::collections::HashSet::new();
        let mut unique = Vec::new();
        for dir in dirs.into_iter().filter(|d| p.is_absolute(d)).take(MAX_DIRS) {
            let dir = p.normalize(&dir);
            let key = if p.case_insensitive() {
                dir.to_lowercase()
            } else {
                dir.clone()
            };
            if seen.insert(key) {
                unique.push(dir);
            }
        }
        Locator { dirs: unique }
    }

    /// Every file named `name` in these folders.
    pub fn find(&self, ctx: &SystemContext, name: &str) -> Vec<String> {
        self.find_except(ctx, name, &[])
    }

    /// Like [`find`](Self::find), without asking again in `known_empty`: folders where the
    /// loader already looked for this name and found nothing.
    pub fn find_except(
        &self,
        ctx: &SystemContext,
        name: &str,
        known_empty: &[String],
    ) -> Vec<String> {
        let p = ctx.platform;
        let empty: Vec<String> = known_empty.iter().map(|d| p.normalize(d)).collect();
        self.dirs
            .iter()
            .filter(|dir| !empty.iter().any(|e| p.same_name(e, dir)))
            .map(|dir| p.join(dir, name))
            .filter(|candidate| ctx.fs.is_file(candidate))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::context::machine_file;

    #[test]
    fn finds_copies_in_install_roots_case_insensitively() {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("fs/C");
        let cuda = c.join("Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.8/bin");
        std::fs::create_dir_all(&cuda).unwrap();
        std::fs::write(cuda.join("CUDNN64_8.DLL"), b"x").unwrap();
        let env = c.join("Users/u/miniconda3/envs/tf/Library/bin");
        std::fs::create_dir_all(&env).unwrap();
        std::fs::write(env.join("cudnn64_8.dll"), b"x").unwrap();
        let toml = dir.path().join("machine.toml");
        std::fs::write(
            &toml,
            "platform = \"windows\"\n[drives]\nC = \"fs/C\"\n[env]\nUSERPROFILE = 'C:\\Users\\u'\n",
        )
        .unwrap();
        let ctx = machine_file::load(&toml).unwrap();
        let found = locate(&ctx, "cudnn64_8.dll", &[]);
        assert_eq!(
            found,
            vec![
                r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin\cudnn64_8.dll",
                r"C:\Users\u\miniconda3\envs\tf\Library\bin\cudnn64_8.dll",
            ]
        );
    }
}
