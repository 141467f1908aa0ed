//! Windows' NTSTATUS values in a log: the exit code of a Windows process that died of an
//! exception or a loader failure, as apps print it for a crashed GPU worker ("llama runner
//! process has terminated: exit status 0xc0000409", "Process finished with exit code
//! -1073741819 (0xC0000005)", "exited with code 3221225781", and an Electron app's
//! sign-extended 64-bit code rounded by JavaScript, "Exit code: 18446744072635812000"). The
//! names and numbers are the generated table's rows of mingw-w64's `ntstatus.h`.

use super::status::row_for;
use crate::engine::knowledge::catalog::Catalog;
use crate::engine::knowledge::generated::StatusCode;
use regex::Regex;
use std::sync::OnceLock;

/// The error-severity, facility-0 values the table holds, in the three spellings: hexadecimal,
/// unsigned decimal (Python, Go, .NET) and signed decimal (C's `int`, PyCharm, Node).
fn spellings() -> &'static [Regex; 3] {
    static RE: OnceLock<[Regex; 3]> = OnceLock::new();
    RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        [
            re(r"(?i)\b0x(c000[0-9a-f]{4})\b"),
            re(r"(?:^|[^0-9.\-])(32212[0-9]{5})\b"),
            re(r"(?:^|[^0-9.])-(10737[0-9]{5})\b"),
        ]
    })
}

/// A 20-digit number just under 2^64: a negative 32-bit status sign-extended and printed
/// unsigned.
fn sign_extended() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(r"(?:^|[^0-9.])(184467440[67][0-9]{10})\b")
    })
}

/// Words that say a number on the line is a result ("exit status", "error code", "returned",
/// "exception"): a byte count or an address range near 0xC0000000 is not a status.
fn says_result(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)\b(?:exit|exited|code|status|error|errno|returned|return value|result|terminated|crash(?:ed)?|exception|fail(?:ed|ure)?|enum|unable to start(?: correctly)?)\b|\bSTATUS_[A-Z]",
        )
    })
    .is_match(line)
}

/// A status sign-extended to 64 bits and printed unsigned (2^64 - 2^32 + status), as a
/// JavaScript number: a double, so past 2^53 its last digits are rounded ("18446744072635812000"
/// for 0xC0000409). The exact value when the digits are exact; else the one value, of those the
/// catalog explains, that rounds to the same double (none when several do: "…810000" is any of
/// 0xC0000000 to 0xC00003FF, access violation and illegal instruction alike).
fn sign_extended_value(digits: &str, catalog: &Catalog) -> Option<i64> {
    const BASE: u128 = (1u128 << 64) - (1u128 << 32);
    let n: u128 = digits.parse().ok()?;
    let exact = n.checked_sub(BASE).and_then(|v| i64::try_from(v).ok());
    if let Some(v) = exact.filter(|v| is_nt_status_number(*v))
        && row_for("ntstatus", Some(v), None).is_some()
        && !digits.ends_with("000")
    {
        return Some(v);
    }
    let rounded = n as f64;
    let mut fits = (0xC000_0000i64..=0xC000_FFFF)
        .filter(|v| (BASE + *v as u128) as f64 == rounded)
        .filter(|v| catalog.code("ntstatus", *v).is_some());
    let first = fits.next()?;
    fits.next().is_none().then_some(first)
}

/// The NTSTATUS rows whose values the line prints, in order of first mention; none on a line
/// that does not say a result.
pub fn rows_on(line: &str, catalog: &Catalog) -> Vec<&'static StatusCode> {
    if !says_result(line) {
        return Vec::new();
    }
    let [hex, unsigned, signed] = spellings();
    let mut values: Vec<(usize, i64)> = Vec::new();
    for c in sign_extended().captures_iter(line) {
        if let Some(v) = sign_extended_value(&c[1], catalog) {
            values.push((c.get(1).map_or(0, |m| m.start()), v));
        }
    }
    for c in hex.captures_iter(line) {
        if let Ok(v) = i64::from_str_radix(&c[1], 16) {
            values.push((c.get(1).map_or(0, |m| m.start()), v));
        }
    }
    for c in unsigned.captures_iter(line) {
        if let Ok(v) = c[1].parse::<i64>() {
            values.push((c.get(1).map_or(0, |m| m.start()), v));
        }
    }
    for c in signed.captures_iter(line) {
        if let Ok(v) = c[1].parse::<i64>() {
            values.push((c.get(1).map_or(0, |m| m.start()), (1i64 << 32) - v));
        }
    }
    values.sort();
    let mut out: Vec<&'static StatusCode> = Vec::new();
    for (_, v) in values {
        if let Some(row) = row_for("ntstatus", Some(v), None)
            && !out.iter().any(|r| r.number == row.number)
        {
            out.push(row);
        }
    }
    out
}

/// Whether a decimal number on a line is one of its NTSTATUS values, unsigned or signed (so
/// that "error code 3221225501" is not also read as a Windows error number).
pub fn is_nt_status_number(n: i64) -> bool {
    (0xC000_0000..=0xC000_FFFF).contains(&n)
}

/// "0xC0000135 (STATUS_DLL_NOT_FOUND)".
pub fn label(row: &StatusCode) -> String {
    format!("Windows status 0x{:08X} ({})", row.number, row.name)
}

/// What the table says of a value: its name, and the exit codes that stand for it.
pub fn words(row: &StatusCode) -> String {
    format!(
        "Windows NTSTATUS 0x{:08X} = {}. A process that ends with this status exits with code {} ({} as a signed 32-bit number), so logs print any of the three. Declared in ntstatus.h of {}.",
        row.number,
        row.name,
        row.number,
        row.number - (1i64 << 32),
        row.first
    )
}
