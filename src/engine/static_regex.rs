//! Regular expressions written in this crate's source, compiled once each at first use.
//!
//! A pattern that does not compile is a bug of this crate, never a property of an input: every
//! pattern runs in the unit tests of the module that holds it, and a broken one fails them on
//! its first use. So compiling may panic, and this is the one place that says so; patterns read
//! from files (knowledge tables, reports) go through `Regex::new` and handle the error.

/// Compiles a pattern written in the source: a literal, or one `format!`ted from literals.
#[allow(
    clippy::expect_used,
    reason = "a pattern of the source: a typo fails the unit tests that run it, never a user's input"
)]
pub fn compile(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("a pattern written in the source compiles")
}

/// [`compile`] for patterns over bytes (binary files' read-only data).
#[allow(
    clippy::expect_used,
    reason = "a pattern of the source: a typo fails the unit tests that run it, never a user's input"
)]
pub fn compile_bytes(pattern: &str) -> regex::bytes::Regex {
    regex::bytes::Regex::new(pattern).expect("a pattern written in the source compiles")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_a_literal_pattern_for_text_and_for_bytes() {
        assert!(compile(r"cudart64_(\d+)\.dll").is_match("cudart64_12.dll"));
        assert!(!compile(r"^libcuda\.so\.1$").is_match("libcuda.so"));
        let release = compile_bytes(r"release (\d+\.\d+)");
        let caps = release.captures(b"Cuda compilation tools, release 12.4, V12.4.131");
        assert_eq!(
            caps.and_then(|c| c.get(1)).map(|m| m.as_bytes()),
            Some(&b"12.4"[..])
        );
    }

    #[test]
    #[should_panic(expected = "a pattern written in the source compiles")]
    fn a_broken_literal_fails_at_its_first_use() {
        compile(r"(unclosed");
    }
}
