//! glibc's binary `/etc/ld.so.cache`: the new format (`glibc-ld.so.cache1.1`) and the old
//! `ld.so-1.7.0` format with a new-format cache appended (what `ldconfig -c compat` writes).
//!
//! Layout of the new format (glibc `sysdeps/generic/dl-cache.h`), little- or big-endian as the
//! header's flags byte says:
//! ```text
//! 0   magic "glibc-ld.so.cache" (17) + version "1.1" (3)
//! 20  u32 nlibs   24 u32 len_strings   28 u8 flags   32 u32 extension_offset   36 u32 unused[3]
//! 48  nlibs × { i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap }   (24 bytes each)
//! ```
//! `key` (the soname) and `value` (the path) are offsets from the start of the new header.
//! The old format is `"ld.so-1.7.0"` (padded to 12), `u32 nlibs`, `nlibs × {i32 flags, u32 key,
//! u32 value}`; the new header follows at the next 8-byte boundary. Parsing is bounds-checked
//! throughout: a damaged cache is an error, never a panic.

use crate::engine::binfmt::Machine;

const NEW_MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
const OLD_MAGIC: &[u8] = b"ld.so-1.7.0";
const NEW_HEADER: usize = 48;
const NEW_ENTRY: usize = 24;
const OLD_ENTRY: usize = 12;
/// `hwcap` bit 62 marks an entry for a `glibc-hwcaps/<subdir>` copy.
const HWCAP_EXTENSION: u64 = 1 << 62;

/// glibc's cache flag values (`FLAG_ELF_LIBC6`, `FLAG_X8664_LIB64`, ...).
pub const FLAG_ELF: i32 = 0x0001;
pub const FLAG_ELF_LIBC6: i32 = 0x0003;
pub const FLAG_TYPE_MASK: i32 = 0x00ff;
pub const FLAG_REQUIRED_MASK: i32 = 0xff00;
pub const FLAG_X8664_LIB64: i32 = 0x0300;
pub const FLAG_AARCH64_LIB64: i32 = 0x0a00;

/// A cache that could not be parsed.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum LdCacheError {
    #[error("not an ld.so.cache (unknown magic)")]
    BadMagic,
    #[error("damaged ld.so.cache: {0}")]
    Truncated(&'static str),
}

/// One cache entry, as `ldconfig -p` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    pub name: String,
    pub path: String,
    pub flags: i32,
    /// Non-zero for entries of a glibc-hwcaps subdirectory.
    pub hwcap: u64,
}

impl CacheEntry {
    /// `libc6,x86-64` and friends, the way `ldconfig -p` labels entries.
    pub fn label(&self) -> String {
        let kind = match self.flags & FLAG_TYPE_MASK {
            FLAG_ELF => "ELF",
            FLAG_ELF_LIBC6 => "libc6",
            0x0002 => "libc5",
            0x0000 => "libc4",
            _ => "unknown",
        };
        match self.flags & FLAG_REQUIRED_MASK {
            0 => kind.to_string(),
            FLAG_X8664_LIB64 => format!("{kind},x86-64"),
            FLAG_AARCH64_LIB64 => format!("{kind},AArch64"),
            0x0800 => format!("{kind},x32"),
            other => format!("{kind},0x{other:04x}"),
        }
    }

    /// Whether ld.so of machine `m` accepts this entry (glibc `_dl_cache_check_flags`).
    pub fn fits(&self, m: &Machine) -> bool {
        let required = self.flags & FLAG_REQUIRED_MASK;
        let kind = self.flags & FLAG_TYPE_MASK;
        let libc6 = kind == FLAG_ELF_LIBC6 || kind == FLAG_ELF;
        match (m.arch.as_str(), m.bits) {
            ("x86_64", 64) => libc6 && required == FLAG_X8664_LIB64,
            ("aarch64", 64) => libc6 && required == FLAG_AARCH64_LIB64,
            (_, 32) => libc6 && required == 0,
            _ => libc6,
        }
    }
}

/// One entry as stored: string positions into the cache bytes, decoded only when asked for.
#[derive(Debug, Clone, Copy)]
struct RawEntry {
    flags: i32,
    name: (usize, usize),
    path: (usize, usize),
    hwcap: u64,
}

/// A parsed cache. Entries keep positions into the file's bytes: parsing allocates no string,
/// and a look-up compares bytes (a process start pays for the handful of names it asks about,
/// not for the whole cache).
#[derive(Debug, Clone, Default)]
pub struct LdCache {
    bytes: Vec<u8>,
    raw: Vec<RawEntry>,
}

impl LdCache {
    /// Parses the bytes of an `ld.so.cache` file.
    pub fn parse(bytes: &[u8]) -> Result<LdCache, LdCacheError> {
        LdCache::from_vec(bytes.to_vec())
    }

    /// As `parse`, keeping `bytes`.
    pub fn from_vec(bytes: Vec<u8>) -> Result<LdCache, LdCacheError> {
        let raw = if bytes.starts_with(NEW_MAGIC) {
            parse_new(&bytes, 0)?
        } else if bytes.starts_with(OLD_MAGIC) {
            let nlibs = read_u32(&bytes, 12, false).ok_or(LdCacheError::Truncated("header"))?;
            let table = (nlibs as usize)
                .checked_mul(OLD_ENTRY)
                .and_then(|n| n.checked_add(16))
                .ok_or(LdCacheError::Truncated("entry count"))?;
            let new_start = table.checked_add(7).map(|n| n & !7);
            match new_start.filter(|&s| bytes.get(s..).is_some_and(|r| r.starts_with(NEW_MAGIC))) {
                Some(start) => parse_new(&bytes, start)?,
                None => parse_old(&bytes, nlibs as usize, table)?,
            }
        } else {
            return Err(LdCacheError::BadMagic);
        };
        Ok(LdCache { bytes, raw })
    }

    fn text(&self, (start, end): (usize, usize)) -> &[u8] {
        &self.bytes[start..end]
    }

    fn decode(&self, raw: &RawEntry) -> CacheEntry {
        let owned = |r| String::from_utf8_lossy(self.text(r)).into_owned();
        CacheEntry {
            name: owned(raw.name),
            path: owned(raw.path),
            flags: raw.flags,
            hwcap: raw.hwcap,
        }
    }

    /// All entries in file order.
    pub fn entries(&self) -> Vec<CacheEntry> {
        self.raw.iter().map(|r| self.decode(r)).collect()
    }

    /// The entry ld.so of machine `m` takes for `name`: the first fitting entry without a
    /// hwcaps subdirectory, else the first fitting one.
    pub fn lookup(&self, name: &str, m: &Machine) -> Option<CacheEntry> {
        let fitting = || {
            self.raw
                .iter()
                .filter(|r| self.text(r.name) == name.as_bytes())
                .map(|r| self.decode(r))
                .filter(|e| e.fits(m))
        };
        fitting()
            .find(|e| e.hwcap & HWCAP_EXTENSION == 0)
            .or_else(|| fitting().next())
    }
}

fn read_u32(b: &[u8], at: usize, big: bool) -> Option<u32> {
    let s: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(if big {
        u32::from_be_bytes(s)
    } else {
        u32::from_le_bytes(s)
    })
}

fn read_u64(b: &[u8], at: usize, big: bool) -> Option<u64> {
    let s: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(if big {
        u64::from_be_bytes(s)
    } else {
        u64::from_le_bytes(s)
    })
}

/// The NUL-terminated string at `base + offset` of `bytes`, as a range of `bytes`.
fn c_string(bytes: &[u8], base: usize, offset: u32) -> Result<(usize, usize), LdCacheError> {
    let start = base
        .checked_add(offset as usize)
        .filter(|&s| s <= bytes.len())
        .ok_or(LdCacheError::Truncated("string offset"))?;
    let len = memchr::memchr(0, &bytes[start..]).ok_or(LdCacheError::Truncated("string offset"))?;
    Ok((start, start + len))
}

/// The new-format table whose header starts at `base` of `bytes` (string offsets are from there).
fn parse_new(bytes: &[u8], base: usize) -> Result<Vec<RawEntry>, LdCacheError> {
    let b = &bytes[base..];
    let header = LdCacheError::Truncated("header");
    // flags byte: 0 unknown (host order, assume little), 2 little-endian, 3 big-endian.
    let big = *b.get(28).ok_or(header.clone())? == 3;
    let nlibs = read_u32(b, 20, big).ok_or(header)? as usize;
    let needed = nlibs
        .checked_mul(NEW_ENTRY)
        .and_then(|n| n.checked_add(NEW_HEADER));
    if needed.is_none_or(|n| n > b.len()) {
        return Err(LdCacheError::Truncated("entry table runs past the end"));
    }
    let mut entries = Vec::with_capacity(nlibs);
    for i in 0..nlibs {
        let at = NEW_HEADER + i * NEW_ENTRY;
        let bad = LdCacheError::Truncated("entry");
        let flags = read_u32(b, at, big).ok_or(bad.clone())? as i32;
        let key = read_u32(b, at + 4, big).ok_or(bad.clone())?;
        let value = read_u32(b, at + 8, big).ok_or(bad.clone())?;
        let hwcap = read_u64(b, at + 16, big).ok_or(bad)?;
        entries.push(RawEntry {
            flags,
            name: c_string(bytes, base, key)?,
            path: c_string(bytes, base, value)?,
            hwcap,
        });
    }
    Ok(entries)
}

fn parse_old(b: &[u8], nlibs: usize, table_end: usize) -> Result<Vec<RawEntry>, LdCacheError> {
    if table_end > b.len() {
        return Err(LdCacheError::Truncated("entry table runs past the end"));
    }
    let mut entries = Vec::with_capacity(nlibs);
    for i in 0..nlibs {
        let at = 16 + i * OLD_ENTRY;
        let bad = LdCacheError::Truncated("entry");
        let flags = read_u32(b, at, false).ok_or(bad.clone())? as i32;
        let key = read_u32(b, at + 4, false).ok_or(bad.clone())?;
        let value = read_u32(b, at + 8, false).ok_or(bad)?;
        entries.push(RawEntry {
            flags,
            name: c_string(b, table_end, key)?,
            path: c_string(b, table_end, value)?,
            hwcap: 0,
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::loader::testing::machine;

    /// `ldconfig -p` lines: `\tNAME (LABEL) => PATH`.
    fn ldconfig_p(args: &[&str]) -> Option<Vec<(String, String, String)>> {
        let out = std::process::Command::new("ldconfig")
            .arg("-p")
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        Some(
            text.lines()
                .filter_map(|l| {
                    let (left, path) = l.trim().split_once(" => ")?;
                    let (name, label) = left.split_once(" (")?;
                    let label = label.trim_end_matches(')');
                    let label = label.split(", hwcap:").next().unwrap_or(label);
                    Some((name.to_string(), label.to_string(), path.to_string()))
                })
                .collect(),
        )
    }

    fn compare(cache_bytes: &[u8], args: &[&str]) {
        let Some(expected) = ldconfig_p(args) else {
            eprintln!("ldconfig not available: skipped");
            return;
        };
        let cache = LdCache::parse(cache_bytes).unwrap();
        let got: Vec<(String, String, String)> = cache
            .entries()
            .iter()
            .map(|e| (e.name.clone(), e.label(), e.path.clone()))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn real_cache_equals_ldconfig_p() {
        let Ok(bytes) = std::fs::read("/etc/ld.so.cache") else {
            eprintln!("no /etc/ld.so.cache: skipped");
            return;
        };
        compare(&bytes, &[]);
        let cache = LdCache::parse(&bytes).unwrap();
        if let Some(e) = cache.lookup("libc.so.6", &machine("x86_64", 64)) {
            assert!(e.path.ends_with("/libc.so.6"));
        }
    }

    #[test]
    fn generated_new_and_compat_caches_equal_ldconfig_p() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("ld.so.conf");
        std::fs::write(&conf, "/lib/x86_64-linux-gnu\n").unwrap();
        for format in ["new", "compat", "old"] {
            let cache = dir.path().join(format!("cache-{format}"));
            let status = std::process::Command::new("ldconfig")
                .args(["-X", "-c", format, "-C"])
                .arg(&cache)
                .arg("-f")
                .arg(&conf)
                .status();
            if !status.is_ok_and(|s| s.success()) {
                eprintln!("ldconfig -c {format} failed: skipped");
                continue;
            }
            let bytes = std::fs::read(&cache).unwrap();
            assert!(LdCache::parse(&bytes).unwrap().entries().len() > 10);
            if format != "old" {
                // ldconfig -p reads only the new part; the old format has no labels for x86-64.
                compare(&bytes, &["-C", cache.to_str().unwrap()]);
            }
        }
    }

    #[test]
    fn damaged_caches_are_errors_not_panics() {
        let bytes = std::fs::read("/etc/ld.so.cache").unwrap_or_else(|_| {
            let mut b = NEW_MAGIC.to_vec();
            b.resize(48 + 24, 0);
            b[20] = 1;
            b
        });
        for cut in [
            0,
            5,
            20,
            30,
            48,
            60,
            bytes.len() / 2,
            bytes.len().saturating_sub(1),
        ] {
            let _ = LdCache::parse(&bytes[..cut.min(bytes.len())]);
        }
        let mut corrupt = bytes.clone();
        for i in (0..corrupt.len()).step_by(7) {
            corrupt[i] = corrupt[i].wrapping_mul(31).wrapping_add(1);
        }
        let _ = LdCache::parse(&corrupt);
        let mut huge = NEW_MAGIC.to_vec();
        huge.resize(48, 0);
        huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(LdCache::parse(&huge).is_err());
        assert_eq!(LdCache::parse(b"nope").unwrap_err(), LdCacheError::BadMagic);
    }
}
