//! Dotted version numbers ("12.4.1", "8.9.6.50", "551.61") and the version specs the knowledge
//! tables use: a single version ("11.8"), a family ("12.x"), a range ("10.1-11.8", "12.x-13.x")
//! or a lower bound (">=11.0"). Parsing never fails loudly: junk gives `None`.

use std::cmp::Ordering;

/// The text before a dotted version's first dot ("12" of "12.4.1"), for comparing majors as
/// written.
pub fn major_part(v: &str) -> &str {
    v.split('.').next().unwrap_or(v)
}

/// A dotted version; missing trailing parts compare as zero only where a caller asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version(pub Vec<u64>);

impl Version {
    /// Parses the leading dotted number of `text` (`"12.4.127"`, `"v11.2"`, `"8.9.7.29"`).
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.trim().trim_start_matches(['v', 'V']);
        let mut parts = Vec::new();
        for part in text.split('.') {
            let digits: String = part.chars().take_while(|c| c.is_ascii_digit()).collect();
            if digits.is_empty() {
                break;
            }
            parts.push(digits.parse().ok()?);
            if digits.len() != part.len() {
                break;
            }
        }
        if parts.is_empty() {
            None
        } else {
            Some(Version(parts))
        }
    }

    pub fn major(&self) -> u64 {
        self.0.first().copied().unwrap_or(0)
    }

    pub fn minor(&self) -> u64 {
        self.0.get(1).copied().unwrap_or(0)
    }

    /// `major.minor`, e.g. "12.4".
    pub fn major_minor(&self) -> String {
        format!("{}.{}", self.major(), self.minor())
    }

    /// Compares part by part, missing parts counting as zero ("12.4" == "12.4.0").
    pub fn cmp_padded(&self, other: &Version) -> Ordering {
        let n = self.0.len().max(other.0.len());
        for i in 0..n {
            let a = self.0.get(i).copied().unwrap_or(0);
            let b = other.0.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => {}
                other => return other,
            }
        }
        Ordering::Equal
    }

    /// Whether `self` starts with all the parts of `prefix` ("8.9.6.50" starts with "8.9.6").
    pub fn starts_with(&self, prefix: &Version) -> bool {
        prefix.0.len() <= self.0.len() && self.0[..prefix.0.len()] == prefix.0[..]
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|p| p.to_string()).collect();
        f.write_str(&parts.join("."))
    }
}

/// Compares two version strings; `None` when either does not parse.
pub fn compare(a: &str, b: &str) -> Option<Ordering> {
    Some(Version::parse(a)?.cmp_padded(&Version::parse(b)?))
}

/// One bound of a spec: an exact release prefix ("11.8") or a whole major ("12.x").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    Exact(Version),
    Major(u64),
}

impl Bound {
    fn parse(text: &str) -> Option<Bound> {
        let text = text.trim();
        if let Some(major) = text.strip_suffix(".x") {
            return major.parse().ok().map(Bound::Major);
        }
        Version::parse(text).map(Bound::Exact)
    }

    /// Whether `v` is at or above the low end of this bound.
    fn at_or_above_low(&self, v: &Version) -> bool {
        match self {
            Bound::Exact(b) => v.cmp_padded(b) != Ordering::Less,
            Bound::Major(m) => v.major() >= *m,
        }
    }

    /// Whether `v` is at or below the high end of this bound (a prefix counts as its whole range).
    fn at_or_below_high(&self, v: &Version) -> bool {
        match self {
            Bound::Exact(b) => v.starts_with(b) || v.cmp_padded(b) != Ordering::Greater,
            Bound::Major(m) => v.major() <= *m,
        }
    }
}

/// A set of versions written the way the tables write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSpec {
    /// "11.8" (matches 11.8, 11.8.89, ...), "12.x".
    One(Bound),
    /// "10.1-11.8", "12.x-13.x".
    Range(Bound, Bound),
    /// ">=11.0".
    AtLeast(Bound),
}

impl VersionSpec {
    pub fn parse(text: &str) -> Option<VersionSpec> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix(">=") {
            return Bound::parse(rest).map(VersionSpec::AtLeast);
        }
        if let Some((lo, hi)) = text.split_once('-') {
            return Some(VersionSpec::Range(Bound::parse(lo)?, Bound::parse(hi)?));
        }
        Bound::parse(text).map(VersionSpec::One)
    }

    pub fn contains(&self, v: &Version) -> bool {
        match self {
            VersionSpec::One(Bound::Exact(b)) => v.starts_with(b),
            VersionSpec::One(Bound::Major(m)) => v.major() == *m,
            VersionSpec::Range(lo, hi) => lo.at_or_above_low(v) && hi.at_or_below_high(v),
            VersionSpec::AtLeast(lo) => lo.at_or_above_low(v),
        }
    }
}

/// Whether `version` falls in any of `specs` (unparseable specs never match).
pub fn any_contains(specs: &[String], version: &str) -> bool {
    let Some(v) = Version::parse(version) else {
        return false;
    };
    specs
        .iter()
        .filter_map(|s| VersionSpec::parse(s))
        .any(|s| s.contains(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_compares() {
        assert_eq!(Version::parse("12.4.127").unwrap().0, vec![12, 4, 127]);
        assert_eq!(Version::parse("v11.2").unwrap().major_minor(), "11.2");
        assert_eq!(Version::parse("12.x").unwrap().0, vec![12]);
        assert!(Version::parse("abc").is_none());
        assert_eq!(compare("551.61", "531.14"), Some(Ordering::Greater));
        assert_eq!(compare("12.4", "12.4.0"), Some(Ordering::Equal));
        assert_eq!(compare("x", "1"), None);
    }

    #[test]
    fn specs() {
        let has = |s: &str, v: &str| {
            VersionSpec::parse(s)
                .unwrap()
                .contains(&Version::parse(v).unwrap())
        };
        assert!(has("11.8", "11.8.89"));
        assert!(!has("11.8", "11.7"));
        assert!(has("12.x", "12.9"));
        assert!(has("10.1-11.8", "11.4"));
        assert!(has("10.1-11.8", "11.8.2"));
        assert!(!has("10.1-11.8", "12.0"));
        assert!(has("12.x-13.x", "13.2"));
        assert!(!has("12.x-13.x", "11.8"));
        assert!(has(">=11.0", "13.0"));
        assert!(!has(">=11.0", "10.2"));
        assert!(has("11.0-11.4", "11.4.3"));
    }
}
