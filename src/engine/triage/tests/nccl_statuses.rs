//! What NCCL and the hosts that call it print: InfiniBand work-completion statuses from NCCL's
//! IB transport (not NCCL, CUDA or Windows codes), NCCL status numbers as bindings print them,
//! and glog's CHECK against a library's success value. Each input is a real line from the
//! public thread cited above it.

use super::*;

/// The status names read from the text.
fn names(t: &Triage) -> Vec<&str> {
    t.codes.iter().filter_map(|c| c.name.as_deref()).collect()
}

#[test]
fn an_ib_completion_error_is_an_ibverbs_status_not_an_nccl_result() {
    // https://github.com/NVIDIA/nccl/issues/214 (error 4 only with nv_peer_mem loaded)
    let t = triage(
        "transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 21938, vendor err 81",
    );
    assert_eq!(names(&t), ["IBV_WC_LOC_PROT_ERR"]);
    let text = all_text(&t);
    assert!(text.contains("Access Control Services (ACS)"), "{text}");
    assert!(text.contains("NCCL_NET_GDR_LEVEL=LOC"), "{text}");
    assert!(!text.contains("ncclInvalidArgument"), "{text}");
    // https://github.com/NVIDIA/nccl/issues/1405 (status=12: the NICs cannot reach each other)
    let t = triage(
        "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer \
         10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid \
         fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f",
    );
    assert_eq!(names(&t), ["IBV_WC_RETRY_EXC_ERR"]);
    assert!(all_text(&t).contains("NCCL_IB_TIMEOUT"));
}

#[test]
fn an_nccl_number_from_a_binding_gets_the_curated_cause() {
    // https://github.com/vllm-project/vllm/issues/427
    let t = triage("NCCL Error 5: invalid usage");
    assert_eq!(names(&t), ["ncclInvalidUsage"]);
    let text = all_text(&t);
    assert!(text.contains("same GPU"), "{text}");
}

#[test]
fn a_glog_check_against_a_library_success_value_reads_the_number() {
    // https://github.com/NVIDIA/caffe/issues/492
    let t = triage("Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error");
    assert_eq!(names(&t), ["ncclUnhandledCudaError"]);
}
