//! A bounds-checked reader for the VS_VERSIONINFO resource.
//!
//! pelite's own parser panics on some corrupt resources (a slice index past the end, found by
//! fuzzing), so pelite only locates the resource bytes and this module walks them. Every node
//! is `wLength, wValueLength, wType, szKey (UTF-16, NUL), pad to 4, Value, pad to 4, Children`;
//! we need the VS_FIXEDFILEINFO value of the root and the `StringFileInfo/<lang>/<key>` strings.
//! Nesting is bounded by the format (root → StringFileInfo → table → string), never recursive
//! beyond that.

/// What the resource says: the fixed file version (`major.minor.patch.build`) and the string
/// tables in file order as (language key like `040904b0`, key, value).
#[derive(Debug, Default)]
pub(super) struct RawVersion {
    pub fixed: Option<[u16; 4]>,
    pub strings: Vec<(String, String, String)>,
    /// `VarFileInfo\Translation` as `llllcccc` keys, in order.
    pub translations: Vec<String>,
}

const MAX_STRINGS: usize = 1_024;
const FIXED_SIGNATURE: u32 = 0xFEEF_04BD;

struct Node<'a> {
    key: String,
    value: &'a [u8],
    /// wValueLength as written (bytes for binary values, UTF-16 units for text).
    value_len: usize,
    children: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn align4(n: usize) -> usize {
    n.saturating_add(3) & !3
}

/// Reads the UTF-16 NUL-terminated string at `at`; returns it and the offset after the NUL.
fn wstr(b: &[u8], mut at: usize) -> Option<(String, usize)> {
    let mut units = Vec::new();
    loop {
        let u = u16_at(b, at)?;
        at += 2;
        if u == 0 {
            return Some((String::from_utf16_lossy(&units), at));
        }
        units.push(u);
    }
}

/// Splits `b` into the node at its start and what follows it (4-aligned).
fn node(b: &[u8]) -> Option<(Node<'_>, &[u8])> {
    let length = usize::from(u16_at(b, 0)?);
    let value_len = usize::from(u16_at(b, 2)?);
    let is_text = u16_at(b, 4)? == 1;
    if length < 6 || length > b.len() {
        return None;
    }
    let this = &b[..length];
    let rest = b.get(align4(length)..).unwrap_or(&[]);
    let (key, after_key) = wstr(this, 6)?;
    let value_start = align4(after_key).min(this.len());
    let value_bytes = if is_text { value_len * 2 } else { value_len };
    let value_end = value_start.saturating_add(value_bytes).min(this.len());
    let value = &this[value_start..value_end];
    let children = this.get(align4(value_end)..).unwrap_or(&[]);
    Some((
        Node {
            key,
            value,
            value_len,
            children,
        },
        rest,
    ))
}

/// All sibling nodes in `b`.
fn nodes(mut b: &[u8]) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    while out.len() < MAX_STRINGS {
        match node(b) {
            Some((n, rest)) => {
                out.push(n);
                b = rest;
            }
            None => break,
        }
    }
    out
}

fn text(value: &[u8]) -> String {
    let units: Vec<u16> = value
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

/// Parses the bytes of an RT_VERSION resource; anything unreadable is simply left out.
pub(super) fn parse(bytes: &[u8]) -> RawVersion {
    let mut out = RawVersion::default();
    let Some((root, _)) = node(bytes) else {
        return out;
    };
    let v = root.value;
    if v.len() >= 52 && u32::from_le_bytes([v[0], v[1], v[2], v[3]]) == FIXED_SIGNATURE {
        let w = |i: usize| u16::from_le_bytes([v[i], v[i + 1]]);
        // dwFileVersionMS at 8 (minor, major as LE u16s), dwFileVersionLS at 12 (build, patch).
        out.fixed = Some([w(10), w(8), w(14), w(12)]);
    }
    for block in nodes(root.children) {
        match block.key.as_str() {
            "StringFileInfo" => {
                for table in nodes(block.children) {
                    for s in nodes(table.children) {
                        if out.strings.len() < MAX_STRINGS {
                            let value = text(s.value);
                            out.strings.push((table.key.clone(), s.key, value));
                        }
                    }
                }
            }
            "VarFileInfo" => {
                for var in nodes(block.children)
                    .into_iter()
                    .filter(|n| n.key == "Translation")
                {
                    let len = var.value_len.min(var.value.len());
                    for pair in var.value[..len].chunks_exact(4).take(64) {
                        let lang = u16::from_le_bytes([pair[0], pair[1]]);
                        let cp = u16::from_le_bytes([pair[2], pair[3]]);
                        out.translations.push(format!("{lang:04x}{cp:04x}"));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_truncation_never_panic() {
        let mut b = [0u8; 64];
        b[0] = 64;
        b[2] = 0xff;
        for cut in 0..b.len() {
            let _ = parse(&b[..cut]);
        }
        let _ = parse(&[0xff; 7]);
        assert!(parse(&[]).strings.is_empty());
    }
}
