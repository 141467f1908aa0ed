//! JAX: `jax`/`jaxlib` and the CUDA plugins that carry its GPU support from 0.4.22 on —
//! `jax-cuda12-plugin` (and `-cuda11-`, `-cuda13-`) with `jax-cuda12-pjrt` (the PJRT plugin in
//! `jax_plugins/xla_cuda12`). The plugin's name gives the CUDA major; its METADATA's
//! `with-cuda` extra pins the `nvidia-*` wheels (`nvidia-cudnn-cu12 <10.0,>=9.8`), which give
//! the oldest cuDNN it accepts; some plugins (0.4.26) ship XLA's `nvvm/libdevice/libdevice.10.bc`.
//! The older combined wheels say both in the local version tag
//! (`jaxlib-0.4.13+cuda12.cudnn89`). A jaxlib with neither is a CPU-only install.

use super::{Site, cudnn_from_wheels, read_metadata};
use crate::engine::inventory::{Framework, FrameworkKind, Package};
use crate::engine::scan::walker::Walker;

pub(super) fn read(w: &mut Walker, site: &Site) -> Option<Framework> {
    let jax_dir = site.dir("jax").or_else(|| site.dir("jaxlib"))?;
    let d = site.dist("jax").or_else(|| site.dist("jaxlib"));
    let mut f = Framework::new(
        FrameworkKind::Jax,
        d.map_or("jax", |d| d.0.as_str()),
        d.map(|d| d.1.clone()),
        &jax_dir,
    );
    let pieces = site
        .dists
        .iter()
        .filter(|(n, _, _)| n == "jaxlib" || n.starts_with("jax-cuda"));
    for (name, ver, e) in pieces {
        f.plugins.push(Package {
            name: name.clone(),
            version: Some(ver.clone()),
        });
        f.evidence.push(e.path.clone());
        if let Some(major) = name
            .strip_prefix("jax-cuda")
            .and_then(|r| r.split('-').next())
        {
            if f.expects.cuda.is_none() {
                f.expects.cuda = Some(major.to_string());
                f.expects.basis = Some(format!("{name} (plugin name)"));
            }
            f.cuda_build = Some(true);
            let wheels = read_metadata(w, &e.path, 64 << 10).1;
            f.expects.wheels.extend(wheels);
            let p = w.platform();
            let module = name.replace('-', "_");
            let bc = p.normalize(&p.join(
                &p.parent(&e.path).unwrap_or_default(),
                &format!("{module}/nvvm/libdevice/libdevice.10.bc"),
            ));
            if f.libdevice.is_none() && w.is_file(&bc) {
                f.libdevice = Some(bc);
            }
        }
        // jaxlib-0.4.13+cuda12.cudnn89: the old combined CUDA wheels.
        if let Some(tag) = ver.split_once('+').map(|(_, t)| t.to_string()) {
            for part in tag.split('.') {
                if let Some(c) = part.strip_prefix("cuda") {
                    if f.expects.cuda.is_none() {
                        f.expects.cuda = Some(c.to_string());
                        f.expects.basis = Some(format!("{name} {ver} (local version tag)"));
                    }
                    f.cuda_build = Some(true);
                } else if let Some(c) = part.strip_prefix("cudnn") {
                    let v = if c.len() >= 2 {
                        format!("{}.{}", &c[..1], &c[1..])
                    } else {
                        c.to_string()
                    };
                    f.expects.cudnn.get_or_insert(v);
                }
            }
        }
    }
    if f.expects.cudnn.is_none() {
        f.expects.cudnn = cudnn_from_wheels(&f.expects.wheels);
    }
    if f.cuda_build.is_none() && site.dist("jaxlib").is_some() {
        // jaxlib on PyPI is the CPU build; CUDA comes only with a plugin or a +cuda wheel.
        f.cuda_build = Some(false);
        f.expects.basis = Some("jaxlib without a jax-cuda plugin or +cuda tag".into());
    }
    Some(f)
}
