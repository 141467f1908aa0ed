//! A tensor the text shows with more elements than a 32-bit integer counts (2^31 − 1), beside a
//! math library's refusal (INVALID_VALUE, NOT_SUPPORTED, an illegal parameter): many cuBLAS,
//! cuSOLVER and cuDNN routines take their sizes as 32-bit integers, so such a tensor is refused
//! whatever the install (https://github.com/PaddlePaddle/Paddle/pull/74280: lstsq on a
//! 253522376 × 9 tensor, CUSOLVER error 3).

use super::extract::clip;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use regex::Regex;
use std::sync::OnceLock;

/// 2^31 − 1, the largest count a 32-bit signed size holds.
const INT32_MAX: u128 = 2_147_483_647;

/// The finding for the largest such tensor, where the text also shows a library refusing a call.
pub fn large_tensor_findings(text: &str) -> Vec<Finding> {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    let (shape, refusal) = RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        (
            re(
                r"(?:\bTensor\(\[|torch\.Size\(\[|\bshape\s*[=:]\s*[\[(]|Tensor\()\s*([0-9]+(?:\s*,\s*[0-9]+)+)\s*[\])]",
            ),
            re(
                r"(?i)INVALID_VALUE|NOT_SUPPORTED|BAD_PARAM|illegal value|(?:cusolver|cublas|cusparse|cufft|cudnn)[ _](?:error|status)",
            ),
        )
    });
    if !refusal.is_match(text) {
        return Vec::new();
    }
    let largest = text
        .lines()
        .flat_map(|line| {
            shape.captures_iter(line).filter_map(move |c| {
                let dims: Option<Vec<u128>> =
                    c[1].split(',').map(|d| d.trim().parse().ok()).collect();
                let count = dims?.iter().try_fold(1u128, |a, d| a.checked_mul(*d))?;
                Some((count, c[1].to_string(), line))
            })
        })
        .filter(|(count, _, _)| *count > INT32_MAX)
        .max_by_key(|(count, _, _)| *count);
    let Some((count, dims, line)) = largest else {
        return Vec::new();
    };
    vec![
        Finding::new(
            codes::TENSOR_PAST_32BIT_LIMIT,
            Severity::Error,
            format!(
                "A tensor of {count} elements ([{dims}]) is past 2^31 - 1, the size limit of many \
                 cuBLAS, cuSOLVER and cuDNN routines"
            ),
            format!(
                "The text shows a tensor of shape [{dims}], {count} elements, beside a library \
                 refusing a call. Many routines of NVIDIA's math libraries take sizes, leading \
                 dimensions and workspace counts as 32-bit integers, and refuse (INVALID_VALUE, \
                 NOT_SUPPORTED, an illegal parameter) a problem whose element count passes \
                 2^31 - 1 = {INT32_MAX}: no install or driver change helps. cuDNN documents the \
                 same limit for its tensors."
            ),
        )
        .with_evidence(Evidence::new("log", clip(line)))
        .with_evidence(Evidence::new(
            "source",
            "https://github.com/PaddlePaddle/Paddle/pull/74280 (lstsq on a 253522376 x 9 tensor: \
             CUSOLVER error 3; PyTorch fails the same way), https://github.com/pytorch/pytorch/issues/22496 \
             (cuDNN: tensors of more than 2^31 elements are not supported)",
        ))
        .with_fix(FixRef {
            id: "advice-split-large-tensor".into(),
            kind: FixKind::Manual,
            summary: "Split the work into pieces under 2^31 elements each (a smaller batch, chunks \
                      of rows), or use a framework release that splits such calls itself."
                .into(),
        }),
    ]
}
