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
fn cupys_upper_case_nccl_names_are_nccls_results() {
    // https://github.com/vllm-project/vllm/issues/19613 (NCCL_BUFFSIZE too large: a failed
    // memory registration)
    let t = triage(
        "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error (run with NCCL_DEBUG=INFO for details)",
    );
    assert_eq!(names(&t), ["ncclSystemError"]);
    assert!(all_text(&t).contains("NCCL_DEBUG=INFO"));
}

#[test]
fn nccls_error_string_on_an_nccl_line_is_its_result() {
    // https://github.com/NVIDIA/nccl-tests/issues/5 (nccl-tests against NCCL 1.3.4)
    let t = triage("NCCL failure all_reduce.cu:95 'unhandled cuda error'");
    assert_eq!(names(&t), ["ncclUnhandledCudaError"]);
    // The same words on a line about something else are not NCCL's.
    let t = triage("RuntimeError: internal error while compiling the kernel");
    assert!(t.codes.iter().all(|c| c.kind != "nccl"), "{:?}", t.codes);
}

#[test]
fn a_glog_check_against_a_library_success_value_reads_the_number() {
    // https://github.com/NVIDIA/caffe/issues/492
    let t = triage("Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error");
    assert_eq!(names(&t), ["ncclUnhandledCudaError"]);
}

#[test]
fn nccl_without_a_usable_ip_interface_points_at_the_container_network() {
    // https://github.com/NVIDIA/nccl/issues/210 (the NCCL developer: no IP interface found)
    let t = triage(
        "include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol",
    );
    let text = all_text(&t);
    assert!(text.contains("no usable IP network interface"), "{text}");
    assert!(text.contains("--network host"), "{text}");
    // https://github.com/EasonXiao-888/MambaTree/issues/14 (NCCL 2.14.3 under torch.distributed)
    let t = triage(
        "ncclInternalError: Internal check failed.\nLast error:\nBootstrap : no socket interface found",
    );
    let text = all_text(&t);
    assert!(text.contains("NCCL_SOCKET_IFNAME"), "{text}");
    assert!(text.contains("no usable IP network interface"), "{text}");
}

#[test]
fn a_refused_or_timed_out_nccl_connection_points_at_the_interface_choice() {
    // https://github.com/NVIDIA/nccl/issues/111 (inter-node over sockets)
    let t = triage(
        "*server name* [0] include/socket.h:185 WARN Call to connect failed : Connection refused",
    );
    let text = all_text(&t);
    assert!(
        text.contains("over the network: Connection refused"),
        "{text}"
    );
    assert!(text.contains("NCCL_SOCKET_IFNAME=^docker0,lo"), "{text}");
    // https://github.com/pytorch/pytorch/issues/38702 (four nodes, an address none of them has)
    let t = triage("NCCL WARN Connect to 10.38.10.112<21724> failed : Connection refused");
    assert!(all_text(&t).contains("NCCL_SOCKET_IFNAME"));
    // https://github.com/NVIDIA/nccl-tests/issues/15
    let t = triage(
        "gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out",
    );
    assert!(all_text(&t).contains("over the network: Connection timed out"));
    // A refused connection outside NCCL's WARN lines is not read as NCCL's.
    let t = triage("requests.exceptions.ConnectionError: [Errno 111] Connection refused");
    assert!(!all_text(&t).contains("NCCL_SOCKET_IFNAME"));
}
