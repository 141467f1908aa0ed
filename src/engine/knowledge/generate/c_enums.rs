//! A reader of C enums as NVIDIA's headers write them: `typedef enum tag { ... } name;`,
//! `enum __device_builtin__ tag { ... };`, anonymous `typedef enum { ... } name;`, values in
//! decimal or hex, implicit (previous + 1) or naming an earlier enumerator, and the doc comment
//! of each enumerator whether it stands before it (`/** ... */`) or after it on the same line
//! (`///<`, `/**< */`, `//`). Preprocessor lines inside the body are skipped. Also a block of
//! `#define NAME value` lines under a section comment (OpenCL's `/* Error Codes */` in CL/cl.h).

/// One enumerator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumerator {
    pub name: String,
    pub value: i64,
    pub comment: String,
}

/// The enumerators of the enum whose tag or typedef name is `wanted`; empty when absent.
/// `text` with its C comments (`/* … */`, `// …` to the end of the line) left out.
pub fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                rest = rest[b + 2..]
                    .split_once("*/")
                    .map_or("", |(_, after)| after);
                out.push(' ');
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].split_once('\n').map_or("", |(_, after)| after);
                out.push(' ');
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

pub fn enumerators(header: &str, wanted: &str) -> Vec<Enumerator> {
    let mut from = 0;
    while let Some(at) = header[from..].find("enum") {
        let start = from + at;
        from = start + 4;
        if !word_boundary(header, start, 4) {
            continue;
        }
        let Some(open_rel) = header[from..].find(['{', ';']) else {
            break;
        };
        let open = from + open_rel;
        if header.as_bytes()[open] == b';' {
            continue;
        }
        // A comment may sit between `enum` and its brace (nppdefs.h: `typedef enum /**< NppStatus
        // NPP return value */ {`).
        let tag = without_comments(&header[from..open]);
        let tag_words: Vec<&str> = tag.split_whitespace().collect();
        let declaration = tag_words.len() <= 3
            && tag_words
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if !declaration {
            continue;
        }
        let Some(close_rel) = header[open..].find('}') else {
            break;
        };
        let close = open + close_rel;
        let after = header[close + 1..].split(';').next().unwrap_or("");
        let typedef_name = after.split_whitespace().last().unwrap_or("");
        if tag_words.contains(&wanted) || typedef_name == wanted {
            return parse_body(&header[open + 1..close]);
        }
        from = close;
    }
    Vec::new()
}

fn word_boundary(text: &str, start: usize, len: usize) -> bool {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    (start == 0 || !ident(b[start - 1])) && b.get(start + len).is_none_or(|&c| !ident(c))
}

/// The integer `#define`s of every section that a line holding `section` (a comment such as
/// `/* Error Codes */`) opens, each up to the next line that starts with a comment; `#ifdef`/
/// `#endif` lines inside are skipped. Empty when there is no such section.
pub fn defines_in_section(header: &str, section: &str) -> Vec<Enumerator> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in header.lines() {
        let line = line.trim();
        if line.contains(section) {
            inside = true;
        } else if line.starts_with("/*") || line.starts_with("//") {
            inside = false;
        } else if inside {
            out.extend(integer_define(line));
        }
    }
    out
}

/// Every `#define NAME <integer>` of the header.
pub fn integer_defines(header: &str) -> Vec<Enumerator> {
    header
        .lines()
        .filter_map(|l| integer_define(l.trim()))
        .collect()
}

/// The entries of an X-macro list (cufile.h: `CUFILE_OP(CUFILEOP_BASE_ERR + 1,
/// CU_FILE_DRIVER_NOT_INITIALIZED, nvidia-fs driver is not loaded. ...) \\`): the value (a number,
/// or an integer `#define` of the header plus a number), the name, and the message as the
/// header's third argument. The macro's own `#define CUFILE_OP(code, name, string)` lines are
/// not entries.
pub fn x_macro_entries(header: &str, macro_name: &str) -> Vec<Enumerator> {
    let defines = integer_defines(header);
    let value_of = |expr: &str| -> Option<i64> {
        let mut total = 0;
        for term in expr.split('+').map(str::trim) {
            total += match term.parse::<i64>() {
                Ok(n) => n,
                Err(_) => defines.iter().find(|d| d.name == term)?.value,
            };
        }
        Some(total)
    };
    let opening = format!("{macro_name}(");
    header
        .lines()
        .filter_map(|l| {
            let body = l.trim().strip_prefix(&opening)?;
            let body = body.trim_end().trim_end_matches('\\').trim_end();
            let body = body.strip_suffix(')')?;
            let mut args = body.splitn(3, ',').map(str::trim);
            let value = value_of(args.next()?)?;
            let name = args.next()?;
            let valid = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (valid && !name.is_empty()).then(|| Enumerator {
                name: name.to_string(),
                value,
                comment: args.next().unwrap_or("").to_string(),
            })
        })
        .collect()
}

fn integer_define(line: &str) -> Option<Enumerator> {
    let mut words = line.split_whitespace();
    if words.next() != Some("#define") {
        return None;
    }
    let name = words.next()?;
    let value = words.next()?.trim_matches(['(', ')']).parse::<i64>().ok()?;
    Some(Enumerator {
        name: name.to_string(),
        value,
        comment: String::new(),
    })
}

/// Cleans a doc comment: no comment markers, no Doxygen commands, one line.
pub fn clean_comment(raw: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for line in raw.lines() {
        let line = line
            .trim()
            .trim_start_matches("/**<")
            .trim_start_matches("/*!<")
            .trim_start_matches("///<")
            .trim_start_matches("/**")
            .trim_start_matches("/*")
            .trim_start_matches("//")
            .trim_end_matches("*/")
            .trim()
            .trim_start_matches('*')
            // `//!< text` (NVML): the Doxygen "member before" marker.
            .trim_start_matches("!<")
            .trim_start_matches('<')
            .trim();
        for w in line.split_whitespace() {
            if matches!(w, "\\p" | "\\c" | "\\e" | "\\ref" | "\\b" | "\\n") {
                continue;
            }
            words.push(w.trim_start_matches("::").to_string());
        }
    }
    words.join(" ")
}

enum Token<'a> {
    Comment { text: &'a str, same_line: bool },
    Item(&'a str),
}

/// Splits a body into comments and comma-separated items, noting whether a comment starts on
/// the line where the previous item ended.
fn tokens(body: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut item_start: Option<usize> = None;
    let mut newline_since_item = true;
    let b = body.as_bytes();
    while i < b.len() {
        let rest = &body[i..];
        if rest.starts_with("/*") || rest.starts_with("//") {
            let end = if rest.starts_with("/*") {
                rest.find("*/").map(|e| e + 2).unwrap_or(rest.len())
            } else {
                rest.find('\n').unwrap_or(rest.len())
            };
            if let Some(s) = item_start.take() {
                out.push(Token::Item(&body[s..i]));
                newline_since_item = false;
            }
            out.push(Token::Comment {
                text: &rest[..end],
                same_line: !newline_since_item,
            });
            i += end;
            continue;
        }
        match b[i] {
            b'#' if item_start.is_none() => {
                i += rest.find('\n').unwrap_or(rest.len());
                continue;
            }
            b',' => {
                if let Some(s) = item_start.take() {
                    out.push(Token::Item(&body[s..i]));
                }
                newline_since_item = false;
            }
            b'\n' => {
                newline_since_item = true;
                if let Some(s) = item_start.take() {
                    let text = body[s..i].trim();
                    if !text.is_empty() {
                        item_start = Some(s);
                    }
                }
            }
            c if !c.is_ascii_whitespace() && item_start.is_none() => item_start = Some(i),
            _ => {}
        }
        i += 1;
    }
    if let Some(s) = item_start {
        out.push(Token::Item(&body[s..]));
    }
    out
}

fn parse_body(body: &str) -> Vec<Enumerator> {
    let mut out: Vec<Enumerator> = Vec::new();
    let mut pending = String::new();
    let mut next_value = 0i64;
    for token in tokens(body) {
        match token {
            Token::Comment { text, same_line } => {
                let cleaned = clean_comment(text);
                let trailing = text.starts_with("/**<")
                    || text.starts_with("/*!<")
                    || text.starts_with("///<")
                    || same_line;
                match out.last_mut() {
                    Some(last) if trailing && last.comment.is_empty() => last.comment = cleaned,
                    _ if !trailing => pending = cleaned,
                    _ => {}
                }
            }
            Token::Item(item) => {
                let (name, value) = match item.split_once('=') {
                    Some((n, v)) => (n.trim(), Some(v.trim())),
                    None => (item.trim(), None),
                };
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue;
                }
                let value = value.and_then(|v| literal(v, &out)).unwrap_or(next_value);
                next_value = value + 1;
                out.push(Enumerator {
                    name: name.to_string(),
                    value,
                    comment: std::mem::take(&mut pending),
                });
            }
        }
    }
    out
}

/// A value: decimal or hex (suffixes and parentheses allowed), negative, or an earlier name.
fn literal(text: &str, earlier: &[Enumerator]) -> Option<i64> {
    let t = text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim()),
        None => (false, t),
    };
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()
    } else if let Ok(n) = t.parse::<i64>() {
        Some(n)
    } else {
        earlier.iter().find(|e| e.name == t).map(|e| e.value)
    }?;
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_forms_nvidia_headers_use() {
        let h = "typedef enum cudaError_enum {\n    /**\n     * No errors.\n     */\n    CUDA_SUCCESS = 0,\n\n    /** Bad value. */\n    CUDA_ERROR_INVALID_VALUE = 0x1,\n#if X\n    CUDA_ERROR_X, ///< implied two\n#endif\n    CUDA_ERROR_Y = CUDA_ERROR_X // same as X\n} CUresult;\n";
        let e = enumerators(h, "CUresult");
        let got: Vec<(&str, i64, &str)> = e
            .iter()
            .map(|e| (e.name.as_str(), e.value, e.comment.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("CUDA_SUCCESS", 0, "No errors."),
                ("CUDA_ERROR_INVALID_VALUE", 1, "Bad value."),
                ("CUDA_ERROR_X", 2, "implied two"),
                ("CUDA_ERROR_Y", 2, "same as X"),
            ]
        );
        assert_eq!(enumerators(h, "cudaError_enum").len(), 4);
        assert!(enumerators(h, "cudaError").is_empty());
    }

    #[test]
    fn a_comment_between_enum_and_its_brace_and_negative_values() {
        // nppdefs.h's form.
        let h = "typedef enum /**< NppStatus NPP return value */\n{\n    NPP_STEP_ERROR = -14,       /**<  Step is less or equal zero. */\n    NPP_NO_ERROR = 0\n} NppStatus;\n";
        let got: Vec<(String, i64)> = enumerators(h, "NppStatus")
            .into_iter()
            .map(|e| (e.name, e.value))
            .collect();
        assert_eq!(
            got,
            [
                ("NPP_STEP_ERROR".to_string(), -14),
                ("NPP_NO_ERROR".to_string(), 0)
            ]
        );
    }

    #[test]
    fn defines_of_each_section_up_to_the_next_comment() {
        // CL/cl.h's form.
        let h = "#define CL_PLATFORM 1\n/* Error Codes */\n#define CL_SUCCESS   0\n#define CL_DEVICE_NOT_FOUND -1\n#ifdef CL_VERSION_1_1\n#define CL_MISALIGNED_SUB_BUFFER_OFFSET -13\n#endif\n\n#define CL_INVALID_VALUE -30\n/* cl_bool */\n#define CL_FALSE 0\n/* Error Codes */\n#define CL_PLATFORM_NOT_FOUND_KHR -1001\n";
        let got: Vec<(String, i64)> = defines_in_section(h, "/* Error Codes */")
            .into_iter()
            .map(|e| (e.name, e.value))
            .collect();
        assert_eq!(
            got,
            [
                ("CL_SUCCESS".to_string(), 0),
                ("CL_DEVICE_NOT_FOUND".to_string(), -1),
                ("CL_MISALIGNED_SUB_BUFFER_OFFSET".to_string(), -13),
                ("CL_INVALID_VALUE".to_string(), -30),
                ("CL_PLATFORM_NOT_FOUND_KHR".to_string(), -1001)
            ]
        );
        assert!(defines_in_section(h, "/* Status */").is_empty());
    }

    #[test]
    fn anonymous_typedefs_and_one_line_bodies() {
        let h = "typedef enum { ncclSuccess = 0,\n ncclUnhandledCudaError = 1,\n ncclNumResults = 2 } ncclResult_t;";
        let names: Vec<String> = enumerators(h, "ncclResult_t")
            .into_iter()
            .map(|e| format!("{}={}", e.name, e.value))
            .collect();
        assert_eq!(
            names,
            [
                "ncclSuccess=0",
                "ncclUnhandledCudaError=1",
                "ncclNumResults=2"
            ]
        );
    }
}
