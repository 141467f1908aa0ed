//! The walk itself: breadth-first over load-time imports with already-loaded tracking, then the
//! run-time loads of every object (see the module header of `graph`).

use super::probe::{FileId, FsProbe};
use super::{DependencyGraph, GraphError, GraphOptions, Node, Reader, RuntimeEdge};
use crate::engine::binfmt::{BinaryInfo, Format, ImportKind, Machine};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::loader::linux::{LinuxObject, LinuxSearch};
use crate::engine::loader::runtime::{RuntimeLoad, follows_embedded_names, runtime_loads};
use crate::engine::loader::sxs::{self, ResolvedAssembly};
use crate::engine::loader::windows::WindowsSearch;
use crate::engine::loader::{How, Resolution, try_dir};
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;
use std::sync::Arc;

/// glibc's dynamic linkers: soname → path, per machine. They are in every process already.
const RTLDS: &[(&str, u8, &str, &str)] = &[
    (
        "x86_64",
        64,
        "ld-linux-x86-64.so.2",
        "/lib64/ld-linux-x86-64.so.2",
    ),
    ("i386", 32, "ld-linux.so.2", "/lib/ld-linux.so.2"),
    (
        "aarch64",
        64,
        "ld-linux-aarch64.so.1",
        "/lib/ld-linux-aarch64.so.1",
    ),
];

/// One object loaded in the emulated process.
struct Obj {
    path: String,
    info: Arc<BinaryInfo>,
    /// The object whose need loaded it first (glibc `l_loader`).
    loader: Option<usize>,
    depth: usize,
    node: Option<usize>,
}

enum Search {
    Linux(LinuxSearch),
    Windows(WindowsSearch),
}

struct Walk<'a> {
    ctx: &'a SystemContext,
    opts: &'a GraphOptions,
    probe: FsProbe<'a>,
    search: Search,
    want: Machine,
    objs: Vec<Obj>,
    nodes: Vec<Node>,
    names: HashMap<String, usize>,
    identities: HashMap<FileId, usize>,
    /// The main program when it is not the root (`GraphOptions::main_program`).
    main: Option<(String, Arc<BinaryInfo>)>,
    /// The process's activation context: the root .exe's manifest (resource ID 1).
    process_context: Vec<ResolvedAssembly>,
    /// Set when [`GraphOptions::cancel`] stopped the walk.
    cancelled: bool,
}

pub(super) fn walk(
    ctx: &SystemContext,
    root: &str,
    opts: &GraphOptions,
    reader: Reader,
) -> Result<DependencyGraph, GraphError> {
    let platform = ctx.platform;
    let root = platform.normalize(root);
    let host = ctx.fs.file(&root).map_err(|e| GraphError::Root {
        path: root.clone(),
        message: e.to_string(),
    })?;
    let info = ctx
        .fs
        .binaries()
        .binary(&host, reader)
        .map_err(|e| GraphError::Root {
            path: root.clone(),
            // Name the machine path, not the host folder standing for it.
            message: e.to_string().replace(&host.display().to_string(), &root),
        })?;
    match (info.format, platform) {
        (Format::Pe, Platform::Linux) | (Format::Elf, Platform::Windows) => {
            return Err(GraphError::WrongPlatform {
                path: root,
                format: if info.format == Format::Pe {
                    "PE (Windows)"
                } else {
                    "ELF (Linux)"
                },
                platform: platform.as_str(),
            });
        }
        _ => {}
    }
    let want = info.machine.clone();
    let search = match platform {
        Platform::Linux => Search::Linux(LinuxSearch::from_context(ctx, &want)),
        Platform::Windows => Search::Windows(WindowsSearch::from_context(
            ctx,
            &opts.windows,
            &root,
            &want,
        )),
    };
    let mut w = Walk {
        ctx,
        opts,
        probe: FsProbe::new(&ctx.fs, reader),
        search,
        want,
        objs: Vec::new(),
        nodes: Vec::new(),
        names: HashMap::default(),
        identities: HashMap::default(),
        main: None,
        process_context: Vec::new(),
        cancelled: false,
    };
    if platform == Platform::Linux
        && let Some(program) = &opts.main_program
    {
        w.main = w.probe.info(program).map(|info| (program.clone(), info));
    }
    let is_exe = platform
        .file_name(&root)
        .to_ascii_lowercase()
        .ends_with(".exe");
    if is_exe && let Search::Windows(s) = &w.search {
        w.process_context = w.context_of(s, &info, 1, s.app_dir.as_deref());
    }
    let mut assemblies = w.process_context.clone();
    if let Search::Windows(s) = &w.search {
        assemblies.extend(w.context_of(s, &info, 2, platform.parent(&root).as_deref()));
    }
    w.probe.remember(&root, &host, info.clone());
    w.add_obj(&root, &root, info.clone(), None, None);
    w.seed_rtld();
    let preloaded = w.seed_preload();
    w.load_closure(0);
    for o in preloaded {
        w.load_closure(o);
    }
    if opts.runtime {
        let mut i = 0;
        while i < w.objs.len() {
            w.runtime_of(i);
            i += 1;
        }
    }
    if w.cancelled {
        return Err(GraphError::Cancelled);
    }
    let infos = w
        .objs
        .iter()
        .map(|o| (o.path.clone(), o.info.clone()))
        .collect();
    Ok(DependencyGraph {
        platform,
        root,
        root_info: info,
        nodes: w.nodes,
        infos,
        assemblies,
    })
}

impl Walk<'_> {
    fn key(&self, name: &str) -> String {
        match self.ctx.platform {
            Platform::Windows => {
                let mut base = Platform::Windows.file_name(name).to_lowercase();
                if !base.contains('.') {
                    base.push_str(".dll");
                }
                base
            }
            Platform::Linux => name.to_string(),
        }
    }

    fn add_obj(
        &mut self,
        requested: &str,
        path: &str,
        info: Arc<BinaryInfo>,
        loader: Option<usize>,
        node: Option<usize>,
    ) -> usize {
        let index = self.objs.len();
        let depth = loader.map_or(0, |l| self.objs[l].depth + 1);
        let mut keys = vec![self.key(requested), self.key(path)];
        if self.ctx.platform == Platform::Linux
            && let Some(soname) = &info.soname
        {
            keys.push(soname.clone());
        }
        for k in keys {
            self.names.entry(k).or_insert(index);
        }
        if let Some(id) = self.probe.identity(path) {
            self.identities.entry(id).or_insert(index);
        }
        self.objs.push(Obj {
            path: path.to_string(),
            info,
            loader,
            depth,
            node,
        });
        index
    }

    /// The dynamic linker is loaded before anything else (Linux).
    fn seed_rtld(&mut self) {
        if self.ctx.platform != Platform::Linux {
            return;
        }
        for (arch, bits, soname, path) in RTLDS {
            if self.want.arch == *arch && self.want.bits == *bits {
                let resolved = self.ctx.fs.read_link(path).ok();
                let real = resolved.as_deref().unwrap_or(*path);
                if let Some(info) = self.probe.info(path).or_else(|| self.probe.info(real)) {
                    let i = self.add_obj(soname, path, info, None, None);
                    self.names.entry(real.to_string()).or_insert(i);
                }
            }
        }
    }

    /// The objects `LD_PRELOAD` names, loaded after the main program and before its needs
    /// (glibc `rtld.c` `dl_main`): a need their soname answers binds to them. An entry that is not
    /// there, or is built for another machine, is ignored, as ld.so ignores it ("cannot be
    /// preloaded ... ignored"). Returns the objects loaded, whose own needs follow the closure.
    fn seed_preload(&mut self) -> Vec<usize> {
        if self.ctx.platform != Platform::Linux {
            return Vec::new();
        }
        let mut loaded = Vec::new();
        for entry in crate::engine::loader::linux::ld_preload(self.ctx) {
            let path = if entry.contains('/') {
                Some(entry.clone())
            } else {
                self.resolve(0, &entry).path
            };
            let Some(path) = path else { continue };
            let Some(info) = self.probe.info(&path) else {
                continue;
            };
            if info.machine.arch != self.want.arch || info.machine.bits != self.want.bits {
                continue;
            }
            if self.names.contains_key(&self.key(&entry)) {
                continue;
            }
            loaded.push(self.add_obj(&entry, &path, info, None, None));
        }
        loaded
    }

    fn load_closure(&mut self, start: usize) {
        let mut queue = VecDeque::from([start]);
        while let Some(o) = queue.pop_front() {
            if let Some(progress) = &self.opts.cancel {
                if progress.is_cancelled() {
                    self.cancelled = true;
                    return;
                }
                progress.tick();
            }
            if self.objs[o].depth >= self.opts.max_depth {
                continue;
            }
            let info = self.objs[o].info.clone();
            let imports = info
                .imports
                .iter()
                .filter(|i| i.kind == ImportKind::Load)
                .chain(info.imports.iter().filter(|i| i.kind == ImportKind::Delay));
            for import in imports {
                let delay = import.kind == ImportKind::Delay;
                if let Some(new) = self.edge(o, &import.name, delay, None) {
                    queue.push_back(new);
                }
            }
        }
    }

    fn runtime_of(&mut self, o: usize) {
        if self.objs[o].depth >= self.opts.max_depth {
            return;
        }
        let platform = self.ctx.platform;
        let file_name = platform.file_name(&self.objs[o].path).to_string();
        let system_root = self.ctx.env.get("SystemRoot").unwrap_or(r"C:\Windows");
        let follow_embedded =
            o == 0 || follows_embedded_names(platform, &self.objs[o].path, system_root);
        for load in runtime_loads(platform, &file_name, &self.objs[o].info, follow_embedded) {
            let name = load.name.clone();
            if let Some(new) = self.edge(o, &name, false, Some(load)) {
                self.load_closure(new);
            }
        }
    }

    /// The assemblies `info`'s manifest resource `id` depends on, probed for this process.
    fn context_of(
        &self,
        s: &WindowsSearch,
        info: &BinaryInfo,
        id: u32,
        app_dir: Option<&str>,
    ) -> Vec<ResolvedAssembly> {
        info.assemblies
            .iter()
            .filter(|a| a.resource_id == id)
            .map(|a| sxs::resolve(self.ctx, &s.windows_dir, app_dir, &self.want, a))
            .collect()
    }

    /// A bare name that an activation context redirects: the process's (the .exe's manifest),
    /// or the loading DLL's own (its manifest resource 2, probed beside it).
    fn side_by_side(&self, s: &WindowsSearch, o: usize, name: &str) -> Option<Resolution> {
        let w = Platform::Windows;
        if name.contains(['\\', '/']) {
            return None;
        }
        let obj = &self.objs[o];
        let own = self.context_of(s, &obj.info, 2, w.parent(&obj.path).as_deref());
        let mut name = name.to_string();
        if !name.contains('.') {
            name.push_str(".dll");
        }
        let path = sxs::redirect(&own, &name)
            .or_else(|| sxs::redirect(&self.process_context, &name))?
            .to_string();
        let dir = w.parent(&path).unwrap_or_default();
        let mut attempts = Vec::new();
        Some(
            try_dir(
                &self.probe,
                &self.want,
                &path,
                &dir,
                How::SideBySide,
                &mut attempts,
            )
            .unwrap_or_else(|| Resolution::missing(How::SideBySide, attempts)),
        )
    }

    fn resolve(&self, o: usize, name: &str) -> Resolution {
        match &self.search {
            Search::Windows(s) => self
                .side_by_side(s, o, name)
                .unwrap_or_else(|| s.resolve(name, &self.want, &self.probe)),
            Search::Linux(s) => {
                let mut chain = Vec::new();
                let mut current = Some(o);
                while let Some(c) = current {
                    if chain.len() > self.objs.len() {
                        break;
                    }
                    let obj = &self.objs[c];
                    chain.push(LinuxObject {
                        path: &obj.path,
                        info: &obj.info,
                    });
                    current = obj.loader;
                }
                let main = match &self.main {
                    Some((path, info)) => LinuxObject { path, info },
                    None => LinuxObject {
                        path: &self.objs[0].path,
                        info: &self.objs[0].info,
                    },
                };
                s.resolve(name, &chain, main, &self.want, &self.probe)
            }
        }
    }

    /// Adds the node for `name` needed by object `o`; returns a newly loaded object.
    fn edge(
        &mut self,
        o: usize,
        name: &str,
        delay: bool,
        runtime: Option<RuntimeLoad>,
    ) -> Option<usize> {
        let mut reused = self.names.get(&self.key(name)).copied();
        let mut resolution = Resolution::missing(How::Loaded, Vec::new());
        if reused.is_none() {
            resolution = self.resolve(o, name);
            if let Some(path) = &resolution.path {
                let id = self.probe.identity(path);
                reused = id.and_then(|id| self.identities.get(&id).copied());
                if let Some(j) = reused {
                    let key = self.key(name);
                    self.names.entry(key).or_insert(j);
                    resolution.how = How::Loaded;
                }
            }
        }
        let parent = &self.objs[o];
        let mut node = Node {
            name: name.to_string(),
            path: resolution.path.clone(),
            how: resolution.how,
            parent: parent.path.clone(),
            depth: parent.depth + 1,
            version: None,
            machine: None,
            attempts: resolution.attempts,
            delay,
            runtime: None,
            parent_node: parent.node,
            expanded: false,
        };
        let info = match reused {
            Some(j) => {
                node.how = How::Loaded;
                node.path = Some(self.objs[j].path.clone());
                Some(self.objs[j].info.clone())
            }
            None => node.path.as_deref().and_then(|p| self.probe.info(p)),
        };
        if let Some(info) = &info {
            node.version = info.version.version.clone();
            node.machine = Some(info.machine.arch.clone());
        }
        if let Some(load) = runtime {
            node.runtime = Some(RuntimeEdge {
                required: load.required,
                reason: load.reason,
                found_by: node.how,
            });
            node.how = How::Runtime;
        }
        let index = self.nodes.len();
        let new = match (reused, info, node.path.clone()) {
            (None, Some(info), Some(path)) => {
                node.expanded = node.depth < self.opts.max_depth;
                Some(self.add_obj(name, &path, info, Some(o), Some(index)))
            }
            _ => None,
        };
        self.nodes.push(node);
        new
    }
}
