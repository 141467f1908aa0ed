//! Install, manual and unknown kinds: a step only the user can take, described by the fix's
//! summary; no plan, nothing to verify or check.

use super::KindModule;

pub(super) struct UserStep;

impl KindModule for UserStep {
    fn is_manual(&self) -> bool {
        true
    }
}
