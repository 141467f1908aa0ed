//! Collection through Ansible, for real: ansible-core from PyPI (a venv under tests/.cache)
//! runs `assets/fleet/triage.yml` against three SSH hosts on this machine — Debian's sshd, one
//! per loopback port, each with its own environment set by sshd (`SetEnv`): a healthy one, one
//! with a venv holding a TensorFlow wheel installed without the CUDA wheels it needs, one with a
//! typo in PATH. The playbook copies the binary, writes and fetches three labelled reports, and
//! the fleet view names the two broken hosts and what differs on them.

use crate::fleet_daemons::{
    Daemon, assert_no_host_name, free_port, require, run_with_deadline, user_name, wait_until,
};
use crate::support::{json, run_cli, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The ansible-core release line the test installs.
const ANSIBLE_CORE: &str = "ansible-core>=2.19,<2.20";

/// `tests/.cache/ansible/venv/bin/ansible-playbook`, installed from PyPI on first use (a venv's
/// scripts name their interpreter by absolute path, so it is built where it stays; a stamp file
/// says the install finished).
fn ansible_playbook() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/.cache/ansible/venv");
    let stamp = venv.join(".installed");
    if stamp.is_file() {
        return venv.join("bin/ansible-playbook");
    }
    std::fs::remove_dir_all(&venv).ok();
    make_venv(&venv);
    let pip = Command::new(venv.join("bin/pip"))
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            ANSIBLE_CORE,
        ])
        .output()
        .unwrap();
    assert!(
        pip.status.success(),
        "pip install {ANSIBLE_CORE}: {}",
        String::from_utf8_lossy(&pip.stderr)
    );
    std::fs::write(&stamp, ANSIBLE_CORE).unwrap();
    venv.join("bin/ansible-playbook")
}

/// `python3 -m venv DIR`, with pip.
fn make_venv(dir: &Path) {
    let made = Command::new(require("python3", "python3-venv"))
        .arg("-m")
        .arg("venv")
        .arg(dir)
        .status()
        .unwrap();
    assert!(
        made.success(),
        "python3 -m venv {} (Debian: python3-venv)",
        dir.display()
    );
}

/// Writes a wheel of TensorFlow 2.15.0 as its CUDA build describes itself (`build_info.py`:
/// CUDA 12.2, cuDNN 8) and installs it with pip into a new venv — without the `nvidia-*`
/// wheels `tensorflow[and-cuda]` brings. Returns the venv.
fn venv_with_broken_wheel(dir: &Path) -> PathBuf {
    let venv = dir.join("venv-tf");
    let python = require("python3", "python3-venv");
    let made = Command::new(&python)
        .arg("-m")
        .arg("venv")
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let wheel = dir.join("tensorflow-2.15.0-py3-none-any.whl");
    let script = r#"
import base64, hashlib, sys, zipfile
files = {
  "tensorflow/__init__.py": "",
  "tensorflow/python/platform/build_info.py":
    "build_info = {'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False}\n",
  "tensorflow-2.15.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n",
  "tensorflow-2.15.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-any\n",
}
record = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, text in files.items():
        data = text.encode()
        z.writestr(name, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("tensorflow-2.15.0.dist-info/RECORD,,")
    z.writestr("tensorflow-2.15.0.dist-info/RECORD", "\n".join(record) + "\n")
"#;
    let built = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&wheel)
        .status()
        .unwrap();
    assert!(built.success(), "the wheel is written");
    let pip = Command::new(venv.join("bin/python"))
        .args(["-m", "pip", "install", "--quiet", "--no-index", "--no-deps"])
        .arg(&wheel)
        .output()
        .unwrap();
    assert!(
        pip.status.success(),
        "{}",
        String::from_utf8_lossy(&pip.stderr)
    );
    venv
}

/// One SSH "host": its own sshd on a loopback port, with `env` set in every session.
fn sshd(dir: &Path, name: &str, env: &[(&str, String)], sshd: &Path) -> (Daemon, u16) {
    let port = free_port();
    let d = dir.display();
    let set_env: String = env.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    let config = dir.join(format!("sshd-{name}.conf"));
    std::fs::write(
        &config,
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd-{name}.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nPermitRootLogin prohibit-password\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
             Subsystem sftp internal-sftp\nSetEnv{set_env}\n"
        ),
    )
    .unwrap();
    let daemon = Daemon::start(
        &format!("sshd ({name})"),
        Command::new(sshd).args(["-D", "-e", "-f"]).arg(&config),
        &dir.join(format!("sshd-{name}.log")),
    );
    (daemon, port)
}

fn keygen(ssh_keygen: &Path, path: &Path) {
    let made = Command::new(ssh_keygen)
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "ssh-keygen makes {}", path.display());
}

#[test]
fn the_playbook_collects_three_hosts_and_the_fleet_names_the_broken_two() {
    let sshd_bin = require("sshd", "openssh-server");
    require("ssh", "openssh-client");
    let ssh_keygen = require("ssh-keygen", "openssh-client");
    let playbook_bin = ansible_playbook();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keygen(&ssh_keygen, &dir.join("host_key"));
    keygen(&ssh_keygen, &dir.join("client_key"));
    std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
    // sshd's privilege-separation folder (Debian's service makes it at boot).
    std::fs::create_dir_all("/run/sshd").ok();

    let system_path = "/usr/local/bin:/usr/bin:/bin".to_string();
    let venv = venv_with_broken_wheel(dir);
    let toolkit_bin = dir.join("cuda-12.4/bin");
    std::fs::create_dir_all(&toolkit_bin).unwrap();
    let typo = dir.join("cuda-12.4/bni");
    let hosts = [
        ("healthy", vec![("PATH", system_path.clone())]),
        (
            "broken",
            vec![
                ("VIRTUAL_ENV", venv.display().to_string()),
                ("PATH", format!("{}/bin:{system_path}", venv.display())),
            ],
        ),
        (
            "typo",
            vec![("PATH", format!("{}:{system_path}", typo.display()))],
        ),
    ];
    let mut daemons = Vec::new();
    let mut inventory = String::from("[lab]\n");
    for (name, env) in &hosts {
        let (daemon, port) = sshd(dir, name, env, &sshd_bin);
        daemons.push((daemon, port));
        inventory.push_str(&format!("{name} ansible_port={port}\n"));
    }
    let reports = dir.join("reports");
    inventory.push_str(&format!(
        "\n[lab:vars]\nansible_host=127.0.0.1\nansible_user={}\n\
         ansible_ssh_private_key_file={}\nansible_python_interpreter=/usr/bin/python3\n\
         ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'\n\
         triage_binary_linux={}\ntriage_out={}\n",
        user_name(),
        dir.join("client_key").display(),
        env!("CARGO_BIN_EXE_cuda-triage"),
        reports.display()
    ));
    std::fs::write(dir.join("inventory.ini"), &inventory).unwrap();
    for (daemon, port) in daemons.iter_mut() {
        let port = *port;
        wait_until(
            "sshd listening",
            Duration::from_secs(10),
            &mut [daemon],
            || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
        );
    }

    let playbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fleet/triage.yml");
    let run = run_with_deadline(
        Command::new(&playbook_bin)
            .arg("-i")
            .arg(dir.join("inventory.ini"))
            .arg(&playbook)
            .env("ANSIBLE_NOCOLOR", "1")
            .env("ANSIBLE_HOST_KEY_CHECKING", "False")
            .env("ANSIBLE_LOCAL_TEMP", dir.join("ansible-local"))
            .env("ANSIBLE_REMOTE_TEMP", dir.join("ansible-remote"))
            .env("ANSIBLE_RETRY_FILES_ENABLED", "False")
            // No connection outlives the test (Ansible keeps one open 60 s by default).
            .env("ANSIBLE_SSH_ARGS", "-o ControlMaster=no"),
        Duration::from_secs(300),
    );
    let logs: String = daemons
        .iter()
        .map(|(d, _)| std::fs::read_to_string(&d.log).unwrap_or_default())
        .collect();
    assert!(
        run.status.success(),
        "ansible-playbook: {}\n{}\nsshd:\n{logs}",
        stdout(&run),
        String::from_utf8_lossy(&run.stderr)
    );

    // Three reports, each labelled with its host and redacted.
    for (name, _) in &hosts {
        let text = std::fs::read_to_string(reports.join(format!("{name}.json")))
            .unwrap_or_else(|e| panic!("{name}.json: {e}\n{}", stdout(&run)));
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["label"], *name);
        assert_eq!(doc["redacted"], true);
        assert_no_host_name(&text);
    }

    let out = run_cli(&["fleet", reports.to_str().unwrap(), "--json"]);
    let fleet = &json(&out)["fleet"];
    assert_eq!(fleet["machines"], 3, "{fleet:#}");
    let on = |code: &str| -> Vec<String> {
        fleet["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["code"] == code)
            .map(|s| serde_json::from_value(s["machines"].clone()).unwrap())
            .unwrap_or_default()
    };
    assert_eq!(on("library-missing"), ["broken"], "{fleet:#}");
    assert_eq!(on("path-entry-typo"), ["typo"], "{fleet:#}");
    // The healthy host has none of the findings the others differ by: every finding it has,
    // every machine has.
    for spread in fleet["findings"].as_array().unwrap() {
        let machines = spread["machines"].to_string();
        if machines.contains("healthy") {
            assert_eq!(spread["count"], 3, "{spread}");
        }
    }
    // The TensorFlow column differs, and the broken host holds its minority value.
    let columns = fleet["columns"].as_array().unwrap();
    let tf = columns
        .iter()
        .position(|c| c["key"] == "framework:tensorflow")
        .expect("a TensorFlow column");
    assert_eq!(columns[tf]["differs"], true);
    let broken_row = fleet["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["members"].to_string().contains("broken"))
        .unwrap();
    assert_eq!(broken_row["cells"][tf]["minority"], true, "{broken_row:#}");
    assert!(
        broken_row["cells"][tf]["value"]
            .as_str()
            .unwrap()
            .starts_with("2.15.0 (expects CUDA 12.2"),
        "{broken_row:#}"
    );
    let any_error = fleet["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["severity"] == "error");
    assert_eq!(out.status.code(), Some(if any_error { 1 } else { 0 }));

    let md = stdout(&run_cli(&[
        "fleet",
        reports.to_str().unwrap(),
        "--format",
        "md",
    ]));
    assert!(
        md.contains("`library-missing` on 1 of 3 machine(s): broken"),
        "{md}"
    );
    assert!(
        md.contains("`path-entry-typo` on 1 of 3 machine(s): typo"),
        "{md}"
    );
}
