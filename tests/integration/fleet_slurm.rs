//! Collection through Slurm, for real: Debian's MUNGE and Slurm (one slurmctld and one slurmd,
//! configured in a temporary folder and started by the test) run `assets/fleet/triage.sbatch`
//! through `sbatch`; the node's report lands in the shared folder, labelled with the node's
//! name, redacted, and the fleet view reads it.

use crate::fleet_daemons::{
    Daemon, assert_no_host_name, free_port, require, run_with_deadline, user_name, wait_until,
};
use crate::support::{json, run_cli};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// slurm.conf for one node named `localhost` (the name slurmd falls back to), with every path,
/// port and the MUNGE socket in `dir`.
fn slurm_conf(dir: &Path, user: &str, cpus: usize) -> String {
    let d = dir.display();
    format!(
        "ClusterName=triage\nSlurmctldHost=localhost\nSlurmctldPort={}\nSlurmdPort={}\n\
         SlurmUser={user}\nSlurmdUser=root\nAuthType=auth/munge\nAuthInfo=socket={d}/munge.sock\n\
         CredType=cred/munge\nMpiDefault=none\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
         SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nStateSaveLocation={d}/state\n\
         SlurmdSpoolDir={d}/spool\nSlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
         ReturnToService=2\nJobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n\
         NodeName=localhost CPUs={cpus} State=UNKNOWN\n\
         PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
        free_port(),
        free_port()
    )
}

#[test]
fn sbatch_collects_one_labelled_report_per_node() {
    let munged = require("munged", "munge");
    let mungekey = require("mungekey", "munge");
    let slurmctld = require("slurmctld", "slurm-wlm");
    let slurmd = require("slurmd", "slurm-wlm");
    let sbatch = require("sbatch", "slurm-wlm");
    let sinfo = require("sinfo", "slurm-wlm");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for sub in ["state", "spool", "out"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let key = dir.join("munge.key");
    let made = Command::new(&mungekey)
        .arg("-c")
        .arg("-k")
        .arg(&key)
        .status()
        .unwrap();
    assert!(made.success(), "mungekey makes a key");
    let mut munge = Daemon::start(
        "munged",
        Command::new(&munged)
            .args(["-F", "-f"])
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--socket={}/munge.sock", dir.display()))
            .arg(format!("--pid-file={}/munged.pid", dir.display()))
            .arg(format!("--seed-file={}/munged.seed", dir.display()))
            .arg(format!("--log-file={}/munged.log", dir.display())),
        &dir.join("munged.out"),
    );
    wait_until("munged", Duration::from_secs(10), &mut [&mut munge], || {
        dir.join("munge.sock").exists()
    });

    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let conf = dir.join("slurm.conf");
    std::fs::write(&conf, slurm_conf(dir, &user_name(), cpus)).unwrap();
    let slurm = |program: &Path| {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &conf);
        c
    };
    let mut ctld = Daemon::start(
        "slurmctld",
        slurm(&slurmctld).args(["-D", "-c", "-i"]),
        &dir.join("slurmctld.out"),
    );
    let mut node = Daemon::start("slurmd", slurm(&slurmd).arg("-D"), &dir.join("slurmd.out"));
    wait_until(
        "the node (sinfo says idle)",
        Duration::from_secs(60),
        &mut [&mut munge, &mut ctld, &mut node],
        || {
            slurm(&sinfo)
                .args(["-h", "-o", "%t"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        },
    );

    let reports = dir.join("out/reports");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fleet/triage.sbatch");
    let job = run_with_deadline(
        slurm(&sbatch)
            .arg("--wait")
            .arg(format!("--chdir={}/out", dir.display()))
            .arg(format!(
                "--export=ALL,CUDA_TRIAGE={},TRIAGE_OUT={}",
                env!("CARGO_BIN_EXE_cuda-triage"),
                reports.display()
            ))
            .arg(&script),
        Duration::from_secs(180),
    );
    let job_output: String = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".out"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(
        job.status.success(),
        "sbatch --wait: {}\n{}\njob output:\n{job_output}\nslurmd:\n{}",
        String::from_utf8_lossy(&job.stdout),
        String::from_utf8_lossy(&job.stderr),
        std::fs::read_to_string(&node.log).unwrap_or_default()
    );

    // One report, named and labelled by the Slurm node name, redacted.
    let report = reports.join("localhost.json");
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("{}: {e}\njob output:\n{job_output}", report.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["label"], "localhost");
    assert_eq!(doc["redacted"], true);
    assert_no_host_name(&text);
    // The job's own output is the fleet view of the folder; the CLI reads the same.
    assert!(
        job_output.contains("1 machine(s) in 1 group(s)"),
        "{job_output}"
    );
    let fleet = json(&run_cli(&["fleet", reports.to_str().unwrap(), "--json"]));
    assert_eq!(fleet["fleet"]["machines"], 1, "{fleet:#}");
    assert_eq!(fleet["fleet"]["rows"][0]["members"][0], "localhost");
    let codes: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    for spread in fleet["fleet"]["findings"].as_array().unwrap() {
        assert!(
            codes.contains(&spread["code"].as_str().unwrap()),
            "{spread}"
        );
    }
}
