//! Short explanations of the technical terms the wizard shows (RPATH, KnownDLLs, API set,
//! compute capability, ...), for tooltips: the first term found in a text, or every term a
//! finding uses, each shown with its explanation on hover.

/// (term as written, explanation).
pub const TERMS: &[(&str, &str)] = &[
    (
        "RPATH",
        "A list of folders written into an ELF library or program (DT_RPATH) that the Linux loader searches first for its dependencies — before LD_LIBRARY_PATH. $ORIGIN stands for the folder of the file itself.",
    ),
    (
        "RUNPATH",
        "Like RPATH (DT_RUNPATH), but searched after LD_LIBRARY_PATH and only for the file's own direct dependencies, not for theirs.",
    ),
    (
        "LD_LIBRARY_PATH",
        "An environment variable of folders the Linux loader searches for libraries, after RPATH and before RUNPATH, ld.so.cache and the default folders.",
    ),
    (
        "ld.so.cache",
        "The Linux loader's index of the libraries in the folders listed in /etc/ld.so.conf (rebuilt by ldconfig); searched after RUNPATH.",
    ),
    (
        "SONAME",
        "The name an ELF library records for itself (libcudnn.so.9); programs linked against it ask for this name at run time.",
    ),
    (
        "KnownDLLs",
        "System DLLs Windows always loads from System32, whatever the search order says (registry: Session Manager\\KnownDLLs).",
    ),
    (
        "API set",
        "A virtual DLL name (api-ms-win-*, ext-ms-*) that Windows maps to the real system DLL implementing it; it is never a file on disk.",
    ),
    (
        "compute capability",
        "The GPU architecture's version (8.6 for an RTX 30-series card): each CUDA library and framework build carries code only for some of them.",
    ),
    (
        "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS",
        "LoadLibraryEx flags (0x1000) Python 3.8+ uses for extensions: the DLL's folder, System32 and folders added with os.add_dll_directory — never PATH.",
    ),
    (
        "add_dll_directory",
        "os.add_dll_directory(folder): Python 3.8+ on Windows only searches folders added this way (besides the DLL's own and System32) for an extension's DLLs.",
    ),
    (
        "PATH",
        "On Windows, a classic LoadLibrary searches the folders of PATH last; Python 3.8+ extension imports do not search it at all.",
    ),
    (
        "cuDNN",
        "NVIDIA's deep-learning library (convolutions, RNNs); each framework build needs one major version of it.",
    ),
    (
        "cuBLAS",
        "NVIDIA's matrix-multiply (BLAS) library; its file name carries the CUDA major version (cublas64_12.dll, libcublas.so.12).",
    ),
    (
        "CUPTI",
        "NVIDIA's profiling interface library; TensorFlow loads it for its profiler, from the toolkit's extras\\CUPTI folder.",
    ),
    (
        "ptxas",
        "NVIDIA's PTX assembler; XLA (JAX, TensorFlow) runs it to compile kernels, so its version must be new enough for the GPU and CUDA.",
    ),
];

/// The explanation of a term (case-sensitive: the terms are written as the UI writes them).
pub fn explain(term: &str) -> Option<&'static str> {
    TERMS.iter().find(|(t, _)| *t == term).map(|(_, e)| *e)
}

/// Every term a text uses, in table order (PATH only as a word: not inside LD_LIBRARY_PATH).
pub fn terms_in(text: &str) -> Vec<&'static str> {
    TERMS
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| {
            text.match_indices(t).any(|(i, _)| {
                let before = text[..i].chars().next_back();
                let after = text[i + t.len()..].chars().next();
                let word = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                word(before) && word(after)
            })
        })
        .collect()
}

/// The explanation of a loader's `how` (`rpath`, `known_dll`, `api_set`, ...) for the tree.
pub fn explain_how(how: &str) -> Option<&'static str> {
    let term = match how {
        "rpath" => "RPATH",
        "runpath" => "RUNPATH",
        "ld_library_path" => "LD_LIBRARY_PATH",
        "ld_so_cache" => "ld.so.cache",
        "known_dll" => "KnownDLLs",
        "api_set" => "API set",
        "dll_directory" => "add_dll_directory",
        "path" => "PATH",
        _ => return None,
    };
    explain(term)
}

/// A row of the terms a text uses, each with its explanation on hover.
pub fn terms_ui(ui: &mut egui::Ui, text: &str) {
    let terms = terms_in(text);
    if terms.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new("Terms:").weak());
        for term in terms {
            let explanation = explain(term).unwrap_or_default();
            ui.add(
                egui::Label::new(egui::RichText::new(term).underline()).sense(egui::Sense::hover()),
            )
            .on_hover_text(explanation);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_found_as_words() {
        assert_eq!(
            terms_in("set LD_LIBRARY_PATH, not PATH"),
            ["LD_LIBRARY_PATH", "PATH"]
        );
        assert_eq!(terms_in("the RPATH of x"), ["RPATH"]);
        assert!(terms_in("CUDA_PATH is set").is_empty());
        assert!(explain_how("known_dll").unwrap().contains("System32"));
        assert_eq!(explain_how("direct"), None);
    }
}
