//! Builds real ELF and PE fixtures at test time (libtree's habit): shared objects with exact
//! SONAME / NEEDED / RPATH / RUNPATH / DF_1_NODEFLIB through gcc, and DLLs with exact imports,
//! delay-load imports, exports (forwarders, ordinal-only) and a VERSIONINFO resource through
//! mingw-w64 gcc, dlltool and windres. Nothing is committed; every build goes to a directory the
//! caller owns (usually a `tempfile::TempDir`).
//!
//! ```ignore
//! let so = SoSpec::new("libfoo.so.1").soname("libfoo.so.1").needed("libbar.so.2")
//!     .runpath(&["$ORIGIN/../lib", ""]).build(dir.path())?;
//! let dll = DllSpec::new("foo64_1.dll").import("bar.dll", &["bar_fn"])
//!     .delay_import("lazy.dll", &["lazy_fn"]).export_forwarder("Fwd", "KERNEL32.GetTickCount")
//!     .version_field("ProductName", "Foo 1.2.3").build(dir.path())?;
//! ```
//! NEEDED and imported DLLs need not exist: stub libraries / import libraries with exactly those
//! names are generated next to the output (in `.stubs/`), so the fixture names what it is told.
//! `tool_available("i686-w64-mingw32-gcc")` lets a test fail with the package to install when a
//! toolchain is missing.

#![allow(dead_code)] // a shared helper: each test binary uses part of it

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `tool --version` runs.
pub fn tool_available(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs a command; an error carries the command line and its stderr.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn stubs_dir(dir: &Path) -> Result<PathBuf, String> {
    let stubs = dir.join(".stubs");
    std::fs::create_dir_all(&stubs).map_err(|e| format!("{}: {e}", stubs.display()))?;
    Ok(stubs)
}

/// An ELF shared object (or executable) to build with gcc.
#[derive(Debug, Clone, Default)]
pub struct SoSpec {
    pub file_name: String,
    pub soname: Option<String>,
    /// DT_NEEDED entries, in order; a stub with that SONAME is built for each.
    pub needed: Vec<String>,
    /// Real libraries to link against (their SONAME becomes NEEDED), after `needed`.
    pub link_with: Vec<PathBuf>,
    pub rpath: Option<Vec<String>>,
    pub runpath: Option<Vec<String>>,
    pub nodeflib: bool,
    /// `-m32` (built with `-nostdlib`, so no 32-bit libc is needed).
    pub m32: bool,
    pub executable: bool,
    /// C source; a default one-function body when empty.
    pub source: String,
}

impl SoSpec {
    pub fn new(file_name: &str) -> Self {
        SoSpec {
            file_name: file_name.into(),
            ..Default::default()
        }
    }
    pub fn soname(mut self, s: &str) -> Self {
        self.soname = Some(s.into());
        self
    }
    pub fn needed(mut self, name: &str) -> Self {
        self.needed.push(name.into());
        self
    }
    pub fn link_with(mut self, lib: &Path) -> Self {
        self.link_with.push(lib.into());
        self
    }
    /// DT_RPATH (`--disable-new-dtags`); entries joined with `:`, empty entries kept.
    pub fn rpath(mut self, entries: &[&str]) -> Self {
        self.rpath = Some(entries.iter().map(|s| s.to_string()).collect());
        self
    }
    /// DT_RUNPATH (`--enable-new-dtags`).
    pub fn runpath(mut self, entries: &[&str]) -> Self {
        self.runpath = Some(entries.iter().map(|s| s.to_string()).collect());
        self
    }
    /// DF_1_NODEFLIB (`-z nodefaultlib`).
    pub fn nodeflib(mut self) -> Self {
        self.nodeflib = true;
        self
    }
    pub fn m32(mut self) -> Self {
        self.m32 = true;
        self
    }
    pub fn executable(mut self) -> Self {
        self.executable = true;
        self
    }
    pub fn source(mut self, c: &str) -> Self {
        self.source = c.into();
        self
    }

    /// Builds into `dir/<file_name>` and returns that path.
    pub fn build(&self, dir: &Path) -> Result<PathBuf, String> {
        let out = dir.join(&self.file_name);
        let stubs = stubs_dir(dir)?;
        let mut cmd = Command::new("gcc");
        if self.m32 {
            cmd.args(["-m32", "-nostdlib"]);
        }
        for name in &self.needed {
            let stub = stubs.join(name);
            let stub_src = stubs.join(format!("{name}.c"));
            write(&stub_src, "int fixture_stub_symbol;\n")?;
            let mut stub_cmd = Command::new("gcc");
            if self.m32 {
                stub_cmd.args(["-m32", "-nostdlib"]);
            }
            run(stub_cmd
                .args(["-shared", "-fPIC", "-o"])
                .arg(&stub)
                .arg(&stub_src)
                .arg(format!("-Wl,-soname,{name}")))?;
        }
        let src = stubs.join(format!("{}.main.c", self.file_name));
        let body = if self.source.is_empty() {
            "int fixture_function(void) { return 42; }\n"
        } else {
            &self.source
        };
        let body = if self.executable && self.m32 && !body.contains("_start") {
            format!("{body}\nvoid _start(void) {{ for (;;) {{}} }}\n")
        } else {
            body.to_owned()
        };
        write(&src, &body)?;
        cmd.arg("-o").arg(&out).arg(&src);
        if !self.executable {
            cmd.args(["-shared", "-fPIC"]);
        }
        if let Some(s) = &self.soname {
            cmd.arg(format!("-Wl,-soname,{s}"));
        }
        cmd.arg("-Wl,--no-as-needed");
        for name in &self.needed {
            cmd.arg(stubs.join(name));
        }
        for lib in &self.link_with {
            cmd.arg(lib);
        }
        match (&self.rpath, &self.runpath) {
            (Some(_), Some(_)) => return Err("rpath and runpath are exclusive with GNU ld".into()),
            (Some(r), None) => {
                cmd.arg(format!("-Wl,--disable-new-dtags,-rpath,{}", r.join(":")));
            }
            (None, Some(r)) => {
                cmd.arg(format!("-Wl,--enable-new-dtags,-rpath,{}", r.join(":")));
            }
            (None, None) => {}
        }
        if self.nodeflib {
            cmd.arg("-Wl,-z,nodefaultlib");
        }
        run(&mut cmd)?;
        Ok(out)
    }
}

/// Source of a DLL build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PeArch {
    #[default]
    X86_64,
    I686,
}

impl PeArch {
    pub fn tool(self, name: &str) -> String {
        match self {
            PeArch::X86_64 => format!("x86_64-w64-mingw32-{name}"),
            PeArch::I686 => format!("i686-w64-mingw32-{name}"),
        }
    }
}

/// A DLL to build with mingw-w64, with no CRT: its imports are exactly the ones listed (plus
/// KERNEL32.dll, which the delay-load helper needs, when there are delay imports).
#[derive(Debug, Clone, Default)]
pub struct DllSpec {
    pub file_name: String,
    pub arch: PeArch,
    /// (dll, functions, delay-loaded)
    pub imports: Vec<(String, Vec<String>, bool)>,
    /// Exported functions (defined in the generated source), with optional fixed ordinal.
    pub exports: Vec<(String, Option<u16>)>,
    /// Ordinal-only exports (NONAME).
    pub exports_by_ordinal: Vec<(String, u16)>,
    /// (name, "OTHERDLL.Function")
    pub forwarders: Vec<(String, String)>,
    /// VERSIONINFO string-table values, in order.
    pub version_fields: Vec<(String, String)>,
    pub fixed_file_version: Option<[u16; 4]>,
    /// Extra C source (e.g. string literals for embedded-name scans).
    pub extra_source: String,
}

impl DllSpec {
    pub fn new(file_name: &str) -> Self {
        DllSpec {
            file_name: file_name.into(),
            ..Default::default()
        }
    }
    pub fn arch(mut self, arch: PeArch) -> Self {
        self.arch = arch;
        self
    }
    pub fn import(mut self, dll: &str, functions: &[&str]) -> Self {
        let f = functions.iter().map(|s| s.to_string()).collect();
        self.imports.push((dll.into(), f, false));
        self
    }
    pub fn delay_import(mut self, dll: &str, functions: &[&str]) -> Self {
        let f = functions.iter().map(|s| s.to_string()).collect();
        self.imports.push((dll.into(), f, true));
        self
    }
    pub fn export(mut self, name: &str, ordinal: Option<u16>) -> Self {
        self.exports.push((name.into(), ordinal));
        self
    }
    pub fn export_by_ordinal(mut self, name: &str, ordinal: u16) -> Self {
        self.exports_by_ordinal.push((name.into(), ordinal));
        self
    }
    pub fn export_forwarder(mut self, name: &str, target: &str) -> Self {
        self.forwarders.push((name.into(), target.into()));
        self
    }
    pub fn version_field(mut self, key: &str, value: &str) -> Self {
        self.version_fields.push((key.into(), value.into()));
        self
    }
    pub fn fixed_file_version(mut self, v: [u16; 4]) -> Self {
        self.fixed_file_version = Some(v);
        self
    }
    pub fn extra_source(mut self, c: &str) -> Self {
        self.extra_source = c.into();
        self
    }

    /// Builds into `dir/<file_name>` and returns that path.
    pub fn build(&self, dir: &Path) -> Result<PathBuf, String> {
        let stubs = stubs_dir(dir)?;
        let base = self.file_name.replace('.', "_");
        let mut src = String::new();
        let mut inputs: Vec<PathBuf> = Vec::new();
        for (i, (dll, funcs, delay)) in self.imports.iter().enumerate() {
            let def = stubs.join(format!("{base}.imp{i}.def"));
            let mut text = format!("LIBRARY \"{dll}\"\nEXPORTS\n");
            for f in funcs {
                let _ = writeln!(text, "{f}");
                let _ = writeln!(src, "extern int {f}(void);");
            }
            write(&def, &text)?;
            let lib = stubs.join(format!("lib{base}_imp{i}.a"));
            let flag = if *delay { "-y" } else { "-l" };
            run(Command::new(self.arch.tool("dlltool"))
                .arg("-d")
                .arg(&def)
                .arg("-D")
                .arg(dll)
                .arg(flag)
                .arg(&lib))?;
            inputs.push(lib);
        }
        let calls: Vec<String> = self
            .imports
            .iter()
            .flat_map(|(_, f, _)| f.iter().map(|f| format!("{f}()")))
            .collect();
        let _ = writeln!(
            src,
            "int fixture_use_imports(void) {{ return 0{}; }}",
            calls.iter().map(|c| format!(" + {c}")).collect::<String>()
        );
        let defined = self.exports.iter().map(|(n, _)| n);
        for name in defined.chain(self.exports_by_ordinal.iter().map(|(n, _)| n)) {
            let _ = writeln!(src, "int {name}(void) {{ return fixture_use_imports(); }}");
        }
        let _ = writeln!(
            src,
            "int __stdcall DllMainCRTStartup(void *h, unsigned long r, void *p) {{ return 1; }}\n{}",
            self.extra_source
        );
        let c = stubs.join(format!("{base}.c"));
        write(&c, &src)?;
        let def = stubs.join(format!("{base}.def"));
        let mut text = format!("LIBRARY \"{}\"\nEXPORTS\n", self.file_name);
        for (name, ord) in &self.exports {
            let _ = writeln!(
                text,
                "{name}{}",
                ord.map(|o| format!(" @{o}")).unwrap_or_default()
            );
        }
        for (name, ord) in &self.exports_by_ordinal {
            let _ = writeln!(text, "{name} @{ord} NONAME");
        }
        for (name, target) in &self.forwarders {
            let _ = writeln!(text, "{name} = {target}");
        }
        write(&def, &text)?;
        if !self.version_fields.is_empty() || self.fixed_file_version.is_some() {
            let rc = stubs.join(format!("{base}.rc"));
            write(&rc, &self.rc_text())?;
            let obj = stubs.join(format!("{base}.res.o"));
            run(Command::new(self.arch.tool("windres"))
                .args(["-O", "coff", "-i"])
                .arg(&rc)
                .arg("-o")
                .arg(&obj))?;
            inputs.push(obj);
        }
        let out = dir.join(&self.file_name);
        let mut cmd = Command::new(self.arch.tool("gcc"));
        cmd.args(["-shared", "-nostdlib", "-o"])
            .arg(&out)
            .arg(&c)
            .arg(&def)
            .args(&inputs);
        if self.imports.iter().any(|(_, _, delay)| *delay) {
            cmd.args(["-lmingwex", "-lkernel32"]);
        }
        run(&mut cmd)?;
        if self.imports.iter().any(|(_, _, delay)| *delay) {
            self.fill_delay_directory(&out)?;
        }
        Ok(out)
    }

    /// GNU ld links dlltool's delay-import descriptors but leaves data directory 13 empty
    /// (MSVC link and LLD fill it; tools such as Dependencies read it). Point it at the
    /// descriptors, as those linkers would, so the fixture looks like a real delay-loading DLL.
    fn fill_delay_directory(&self, dll: &Path) -> Result<(), String> {
        let out = Command::new(self.arch.tool("objdump"))
            .args(["-h", "-t"])
            .arg(dll)
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut bytes = std::fs::read(dll).map_err(|e| e.to_string())?;
        let rd32 =
            |b: &[u8], at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let lfanew = rd32(&bytes, 0x3c) as usize;
        let pe64 = bytes[lfanew + 24] == 0x0b && bytes[lfanew + 25] == 0x02;
        let image_base = if pe64 {
            u64::from(rd32(&bytes, lfanew + 48)) | (u64::from(rd32(&bytes, lfanew + 52)) << 32)
        } else {
            u64::from(rd32(&bytes, lfanew + 52))
        };
        // Section VMAs from `-h` ("  0 .text  size  vma ..."), by 1-based index for `-t`.
        let mut vmas = Vec::new();
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() >= 4 && f[0].parse::<usize>().is_ok() && f[1].starts_with('.') {
                vmas.push(u64::from_str_radix(f[3], 16).map_err(|e| e.to_string())?);
            }
        }
        let mut rvas = Vec::new();
        for line in text
            .lines()
            .filter(|l| l.contains("__DELAY_IMPORT_DESCRIPTOR_"))
        {
            let sec = line
                .split("(sec")
                .nth(1)
                .and_then(|r| r.split(')').next())
                .and_then(|n| n.trim().parse::<usize>().ok())
                .ok_or_else(|| format!("unreadable symbol line: {line}"))?;
            let value = line
                .split_whitespace()
                .find_map(|w| u64::from_str_radix(w.strip_prefix("0x")?, 16).ok())
                .ok_or_else(|| format!("unreadable symbol line: {line}"))?;
            let vma = vmas.get(sec - 1).ok_or("section index out of range")?;
            rvas.push((vma - image_base + value) as u32);
        }
        rvas.sort_unstable();
        let first = *rvas.first().ok_or("no __DELAY_IMPORT_DESCRIPTOR_ symbol")?;
        let dirs = lfanew + 24 + if pe64 { 112 } else { 96 };
        let entry = dirs + 13 * 8;
        bytes[entry..entry + 4].copy_from_slice(&first.to_le_bytes());
        let size = 32 * rvas.len() as u32;
        bytes[entry + 4..entry + 8].copy_from_slice(&size.to_le_bytes());
        std::fs::write(dll, bytes).map_err(|e| e.to_string())
    }

    fn rc_text(&self) -> String {
        let v = self.fixed_file_version.unwrap_or([0, 0, 0, 0]);
        let mut rc = format!(
            "1 VERSIONINFO\nFILEVERSION {0},{1},{2},{3}\nPRODUCTVERSION {0},{1},{2},{3}\n\
             FILEOS 0x40004\nFILETYPE 0x2\nBEGIN\n BLOCK \"StringFileInfo\"\n BEGIN\n  \
             BLOCK \"040904b0\"\n  BEGIN\n",
            v[0], v[1], v[2], v[3]
        );
        for (k, val) in &self.version_fields {
            let _ = writeln!(rc, "   VALUE \"{k}\", \"{}\"", val.replace('"', "\"\""));
        }
        rc.push_str("  END\n END\n BLOCK \"VarFileInfo\"\n BEGIN\n  VALUE \"Translation\", 0x409, 1200\n END\nEND\n");
        rc
    }
}
