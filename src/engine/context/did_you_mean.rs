//! "Did you mean …?" for paths: walks a missing path from its root and, at the first component
//! that does not exist, picks the closest existing sibling by edit distance (`/usr/local/cudda/bin`
//! → `/usr/local/cuda/bin`). Bounded: at most a few thousand names are compared per level.

use crate::engine::context::SystemContext;

/// Most directory entries compared at one level.
const MAX_ENTRIES_PER_LEVEL: usize = 5_000;

/// The existing directory the user most likely meant, if one is close enough and differs.
pub fn likely_intended_dir(ctx: &SystemContext, path: &str) -> Option<String> {
    let platform = ctx.platform;
    let normalized = platform.normalize(path);
    if !platform.is_absolute(&normalized) || ctx.fs.is_dir(&normalized) {
        return None;
    }
    let (mut current, rest) = match platform {
        crate::engine::context::Platform::Windows => (
            normalized.get(..3)?.to_string(),
            normalized.get(3..)?.to_string(),
        ),
        crate::engine::context::Platform::Linux => ("/".to_string(), normalized[1..].to_string()),
    };
    let mut changed = false;
    for part in rest.split(platform.separator()).filter(|p| !p.is_empty()) {
        let exact = platform.join(&current, part);
        if ctx.fs.is_dir(&exact) {
            current = exact;
            continue;
        }
        let entries = ctx.fs.read_dir(&current).ok()?;
        let best = entries
            .iter()
            .take(MAX_ENTRIES_PER_LEVEL)
            .filter(|e| e.is_dir)
            .map(|e| (distance(platform.case_insensitive(), part, &e.name), e))
            .filter(|(d, e)| *d <= allowed_edits(part) && !e.name.is_empty())
            .min_by_key(|(d, e)| (*d, e.name.len()))?;
        current = best.1.path.clone();
        changed = true;
    }
    changed.then_some(current)
}

/// Edits tolerated for a name of this length: one for short names, up to three for long ones.
fn allowed_edits(name: &str) -> usize {
    (name.chars().count() / 4).clamp(1, 3)
}

fn distance(case_insensitive: bool, a: &str, b: &str) -> usize {
    if case_insensitive {
        strsim::damerau_levenshtein(&a.to_lowercase(), &b.to_lowercase())
    } else {
        strsim::damerau_levenshtein(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::context::Platform;
    use crate::engine::context::fake::FakeMachine;

    #[test]
    fn finds_the_folder_a_typo_meant() {
        let mut m = FakeMachine::new(Platform::Linux).unwrap();
        m.dir("/usr/local/cuda/bin")
            .dir("/usr/local/cuda-12.4/bin")
            .dir("/usr/local/lib");
        let ctx = m.context();
        assert_eq!(
            likely_intended_dir(&ctx, "/usr/local/cudda/bin").as_deref(),
            Some("/usr/local/cuda/bin")
        );
        assert_eq!(
            likely_intended_dir(&ctx, "/usr/local/cuda/bni").as_deref(),
            Some("/usr/local/cuda/bin")
        );
        assert_eq!(
            likely_intended_dir(&ctx, "/usr/local/cuda/bin"),
            None,
            "exists already"
        );
        assert_eq!(
            likely_intended_dir(&ctx, "/opt/something/else"),
            None,
            "nothing close"
        );
    }

    #[test]
    fn windows_names_compare_without_case() {
        let mut m = FakeMachine::new(Platform::Windows).unwrap();
        m.dir(r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin");
        let ctx = m.context();
        assert_eq!(
            likely_intended_dir(
                &ctx,
                r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bim"
            )
            .as_deref(),
            Some(r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin")
        );
        let found = likely_intended_dir(
            &ctx,
            r"c:\program files\nvidia gpu computing toolkit\cuda\V11.8\binn",
        )
        .unwrap();
        assert!(
            Platform::Windows.same_path(
                &found,
                r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin"
            ),
            "{found}"
        );
    }
}
