//! `fix` through the built binary on real files: a temporary HOME whose login profile has CRLF
//! line ends, a Latin-1 byte and no final newline; list → show (the exact diff) → apply --yes →
//! verified → undo byte-identical; `kill -9` half-way, then the next start rolls it back; a
//! machine file previews (the registry before/after) but is never applied; machine scope is only
//! used when chosen, says it needs administrator rights, and a user without them changes nothing.

use crate::support::{fixture, json, run_cli, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const PROFILE: &[u8] = b"export EDITOR=vi\r\n# caf\xe9\r\nalias ll='ls -l'";

/// A temporary HOME, a CUDA folder and a CUDA_HOME with a typo pointing next to it.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("opt/cuda-12.4/bin")).unwrap();
        std::fs::write(dir.path().join("home/.profile"), PROFILE).unwrap();
        Setup { dir }
    }
    fn p(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
        c.args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.p("home"))
            .env("CUDA_HOME", self.p("opt/cuda-12.44"))
            .env("CUDA_TRIAGE_DATA_DIR", self.p("data"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        c
    }
    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("the binary runs")
    }
    fn profile(&self) -> Vec<u8> {
        std::fs::read(self.p("home/.profile")).unwrap()
    }
}

#[test]
fn fix_list_show_apply_verify_undo_on_a_real_profile() {
    let s = Setup::new();
    let list = json(&s.run(&["fix", "list", "--json"]));
    let fix = list["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "fix-cuda_home")
        .expect("fix offered");
    assert_eq!(fix["kind"], "env-var");
    assert_eq!(
        fix["scopes"],
        serde_json::json!(["user", "machine"]),
        "{fix:#}"
    );
    let show = s.run(&["fix", "show", "fix-cuda_home"]);
    let preview = stdout(&show);
    assert!(
        preview.contains(&format!(
            "+export CUDA_HOME='{}'",
            s.p("opt/cuda-12.4").display()
        )),
        "{preview}"
    );
    assert!(
        preview.contains(&format!("--- a{}", s.p("home/.profile").display())),
        "{preview}"
    );
    // A dry run is the same code with writes off: it names the write and changes nothing.
    let dry = s.run(&["fix", "apply", "fix-cuda_home", "--dry-run"]);
    let said = stdout(&dry);
    assert!(
        said.contains(&format!("would write {}", s.p("home/.profile").display())),
        "{said}{}",
        stderr(&dry)
    );
    assert_eq!(s.profile(), PROFILE);
    assert!(!s.p("data").exists(), "a dry run writes no journal");
    // Without --yes (and no terminal to ask), nothing changes.
    let refused = s.run(&["fix", "apply", "fix-cuda_home"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(s.profile(), PROFILE);
    let applied = json(&s.run(&["fix", "apply", "fix-cuda_home", "--yes", "--json"]));
    assert_eq!(applied["apply"]["outcome"], "applied", "{applied:#}");
    assert_eq!(
        applied["apply"]["verification"]["verified"], true,
        "{applied:#}"
    );
    assert!(s.profile().starts_with(
        b"export EDITOR=vi\r\n# caf\xe9\r\nalias ll='ls -l'\n# >>> cuda-triage >>>\n"
    ));
    let history = json(&s.run(&["fix", "history", "--json"]));
    assert_eq!(history["history"][0]["state"], "applied");
    let undone = s.run(&["fix", "undo"]);
    assert!(undone.status.success(), "{}", stderr(&undone));
    assert_eq!(s.profile(), PROFILE, "undo restores every byte");
    // The words the wizard's Undo logs too (one function): what the fix did, not its kind's id.
    let journal: cuda_triage::engine::api::fix::Journal =
        serde_json::from_value(history["history"][0].clone()).expect("a journal");
    assert_eq!(
        stdout(&undone).trim_end(),
        cuda_triage::engine::api::fix::undone_words(&journal)
    );
    assert!(stdout(&undone).contains(&journal.summary));
}

#[test]
fn kill_9_half_way_then_the_next_start_rolls_back() {
    let s = Setup::new();
    let mut child = s
        .command(&["fix", "apply", "fix-cuda_home", "--yes"])
        .env("CUDA_TRIAGE_TEST_PAUSE_AFTER_WRITE", "600")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until the write has happened, then kill -9.
    let mut waited = 0;
    while !s.profile().ends_with(b"# <<< cuda-triage <<<\n") {
        assert!(waited < 6000, "the apply never wrote the profile");
        std::thread::sleep(std::time::Duration::from_millis(20));
        waited += 1;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let journals: Vec<_> = std::fs::read_dir(s.p("data/journal")).unwrap().collect();
    assert_eq!(journals.len(), 1);
    // The next start finds the journal still `applying` and rolls it back.
    let history = json(&s.run(&["fix", "history", "--json"]));
    assert_eq!(history["history"][0]["state"], "rolled-back", "{history:#}");
    assert_eq!(s.profile(), PROFILE);
    let undo = s.run(&["fix", "undo"]);
    assert_eq!(
        undo.status.code(),
        Some(2),
        "nothing left to undo: {}",
        stdout(&undo)
    );
}

fn machine(name: &str) -> String {
    fixture(&format!("machines/{name}/machine.toml"))
        .display()
        .to_string()
}

#[test]
fn a_machine_file_previews_its_fixes_but_never_applies_them() {
    let m = machine("linux-cuda124-jax");
    let list = json(&run_cli(&["fix", "list", "--machine", &m, "--json"]));
    let ids: Vec<&str> = list["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert!(ids.contains(&"fix-xla-flags"), "{list:#}");
    let out = run_cli(&[
        "fix",
        "show",
        "fix-xla-flags",
        "--machine",
        &m,
        "--scope",
        "env",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("+export XLA_FLAGS='--xla_gpu_cuda_data_dir=/usr/local/cuda'"),
        "{text}{}",
        stderr(&out)
    );
    assert!(
        text.contains("+++ b/home/dev/venvs/jax/bin/activate"),
        "{text}"
    );
    let refused = run_cli(&[
        "fix",
        "apply",
        "fix-xla-flags",
        "--machine",
        &m,
        "--scope",
        "env",
        "--yes",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("not applied"),
        "{}",
        stderr(&refused)
    );
    let path = Path::new(&m)
        .parent()
        .unwrap()
        .join("fs/home/dev/venvs/jax/bin/activate");
    assert!(
        !std::fs::read(path)
            .unwrap_or_default()
            .windows(11)
            .any(|w| w == b"cuda-triage")
    );
}

#[test]
fn machine_scope_only_when_chosen_says_it_needs_administrator_rights_and_a_user_cannot_apply_it() {
    let s = Setup::new();
    // The default is the user's own profile; machine scope is an explicit choice.
    let user = stdout(&s.run(&["fix", "show", "fix-cuda_home"]));
    assert!(user.contains("scope: user\n"), "{user}");
    let shown = s.run(&["fix", "show", "fix-cuda_home", "--scope", "machine"]);
    let machine = stdout(&shown);
    assert!(
        machine.contains("scope: machine (needs administrator rights)\n"),
        "{machine}{}",
        stderr(&shown)
    );
    assert!(
        machine.contains("+++ b/etc/profile.d/cuda-triage.sh"),
        "{machine}"
    );
    // The same code, writes off: it names the file for every user and changes nothing.
    let dry = s.run(&[
        "fix",
        "apply",
        "fix-cuda_home",
        "--scope",
        "machine",
        "--dry-run",
    ]);
    assert!(
        stdout(&dry).contains("would write /etc/profile.d/cuda-triage.sh"),
        "{}{}",
        stdout(&dry),
        stderr(&dry)
    );
    assert!(!s.p("data").exists(), "a dry run writes no journal");
    // Applied by a user without those rights (nobody, through setpriv): a clear error, nothing
    // changed anywhere and no journal left behind.
    let was = std::fs::read("/etc/profile.d/cuda-triage.sh").ok();
    for dir in ["", "home", "home/.profile"] {
        let mut perms = std::fs::metadata(s.p(dir)).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(s.p(dir), perms).unwrap();
    }
    let cmd = s.command(&[
        "fix",
        "apply",
        "fix-cuda_home",
        "--scope",
        "machine",
        "--yes",
    ]);
    let program = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let envs: Vec<_> = cmd
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
        .collect();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(program)
        .args(args)
        .env_clear()
        .envs(envs)
        .stdin(Stdio::null())
        .output()
        .expect("setpriv runs (Debian package util-linux)");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("/etc/profile.d/cuda-triage.sh cannot be changed")
            && stderr(&out).contains("nothing was changed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read("/etc/profile.d/cuda-triage.sh").ok(), was);
    assert_eq!(s.profile(), PROFILE);
    assert!(
        !s.p("data/journal").exists(),
        "no journal for a refused apply"
    );
}
