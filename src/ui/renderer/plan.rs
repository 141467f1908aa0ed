//! The fallback order as plain data: which renderer to try next, what failed, and what to
//! remember once one has drawn the window. A remembered renderer goes first; a forced one is the
//! only one tried and is never remembered.

use super::{Choice, Forced};
use crate::engine::api::{RendererFailure, WindowRenderer};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A renderer that could not draw the window, and the error it gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub renderer: Choice,
    pub error: String,
}

/// What a machine remembers between starts: the renderer that drew its window, and those that
/// failed before it when it was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    pub renderer: Choice,
    #[serde(default)]
    pub failed: Vec<Failure>,
}

/// The renderers still to try in this run, and what this run has seen.
#[derive(Debug, Clone)]
pub struct Plan {
    queue: VecDeque<Choice>,
    forced: Option<Forced>,
    remembered: Option<Remembered>,
    failed: Vec<Failure>,
}

impl Plan {
    /// The plan for one start: the forced choices alone, else the remembered renderer first and
    /// then the rest of `order`.
    pub fn new(order: &[Choice], forced: Option<Forced>, remembered: Option<Remembered>) -> Plan {
        let queue = match (&forced, &remembered) {
            (Some(f), _) => f.choices.iter().copied().collect(),
            (None, Some(r)) if order.contains(&r.renderer) => std::iter::once(r.renderer)
                .chain(order.iter().copied().filter(|c| *c != r.renderer))
                .collect(),
            _ => order.iter().copied().collect(),
        };
        Plan {
            queue,
            forced,
            remembered,
            failed: Vec::new(),
        }
    }

    /// The next renderer to try, if any is left.
    pub fn next_choice(&mut self) -> Option<Choice> {
        self.queue.pop_front()
    }

    /// The renderer [`Plan::next_choice`] would give, without taking it.
    pub fn upcoming(&self) -> Option<Choice> {
        self.queue.front().copied()
    }

    /// Records that `renderer` could not draw the window.
    pub fn fail(&mut self, renderer: Choice, error: impl Into<String>) {
        self.failed.push(Failure {
            renderer,
            error: error.into(),
        });
    }

    /// What failed in this run, in the order tried.
    pub fn failed(&self) -> &[Failure] {
        &self.failed
    }

    /// The variable that forced this run's choices, if one did.
    pub fn forced_by(&self) -> Option<&'static str> {
        self.forced.as_ref().map(|f| f.by)
    }

    /// What to store once `renderer` has drawn the window: `None` when forced, or when it was
    /// the remembered one and nothing failed (the file stays as it is).
    pub fn to_remember(&self, renderer: Choice) -> Option<Remembered> {
        if self.forced.is_some() {
            return None;
        }
        let unchanged = self
            .remembered
            .as_ref()
            .is_some_and(|r| r.renderer == renderer);
        if unchanged && self.failed.is_empty() {
            return None;
        }
        Some(Remembered {
            renderer,
            failed: self.failed.clone(),
        })
    }

    /// The failures behind `renderer` on this machine: this run's, or, when it is the remembered
    /// renderer and went first, those remembered with it.
    pub fn failures_behind(&self, renderer: Choice) -> Vec<Failure> {
        match &self.remembered {
            Some(r) if self.failed.is_empty() && r.renderer == renderer => r.failed.clone(),
            _ => self.failed.clone(),
        }
    }

    /// The report's account of `renderer` drawing the window with `adapter`.
    pub fn describe(&self, renderer: Choice, adapter: Option<String>) -> WindowRenderer {
        WindowRenderer {
            name: renderer.name().to_string(),
            label: renderer.label().to_string(),
            adapter,
            failed: self
                .failures_behind(renderer)
                .into_iter()
                .map(|f| RendererFailure {
                    name: f.renderer.name().to_string(),
                    error: f.error,
                })
                .collect(),
            forced_by: self.forced_by().map(String::from),
        }
    }

    /// Every failure of this run in words, one a line ("wgpu on Vulkan: ...").
    pub fn failed_lines(&self) -> Vec<String> {
        self.failed
            .iter()
            .map(|f| format!("{}: {}", f.renderer.label(), f.error))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOWS: &[Choice] = &[
        Choice::Dx12,
        Choice::Vulkan,
        Choice::Gl,
        Choice::Software,
        Choice::Glow,
    ];

    #[test]
    fn the_first_choice_fails_the_next_is_tried_and_the_choice_is_remembered() {
        let mut plan = Plan::new(WINDOWS, None, None);
        assert_eq!(plan.next_choice(), Some(Choice::Dx12));
        plan.fail(Choice::Dx12, "WGPU error: Parent device is lost");
        assert_eq!(plan.next_choice(), Some(Choice::Vulkan));
        let remembered = plan
            .to_remember(Choice::Vulkan)
            .expect("a new choice is stored");
        assert_eq!(remembered.renderer, Choice::Vulkan);
        assert_eq!(
            remembered.failed,
            vec![Failure {
                renderer: Choice::Dx12,
                error: "WGPU error: Parent device is lost".into()
            }]
        );
        let described = plan.describe(Choice::Vulkan, Some("llvmpipe, cpu".into()));
        assert_eq!(described.name, "vulkan");
        assert_eq!(described.failed[0].name, "dx12");

        // The next start tries the remembered renderer first, pays for no failure, stores
        // nothing new, and still tells what failed when it was chosen.
        let mut next_start = Plan::new(WINDOWS, None, Some(remembered.clone()));
        assert_eq!(next_start.next_choice(), Some(Choice::Vulkan));
        assert_eq!(next_start.to_remember(Choice::Vulkan), None);
        assert_eq!(
            next_start.failures_behind(Choice::Vulkan),
            remembered.failed
        );
    }

    #[test]
    fn a_remembered_renderer_that_fails_goes_back_to_the_order_without_it() {
        let remembered = Remembered {
            renderer: Choice::Gl,
            failed: vec![],
        };
        let mut plan = Plan::new(WINDOWS, None, Some(remembered));
        let mut tried = Vec::new();
        while let Some(c) = plan.next_choice() {
            tried.push(c);
            if c != Choice::Software {
                plan.fail(c, "no adapter");
            } else {
                break;
            }
        }
        assert_eq!(
            tried,
            vec![Choice::Gl, Choice::Dx12, Choice::Vulkan, Choice::Software]
        );
        let stored = plan.to_remember(Choice::Software).unwrap();
        assert_eq!(stored.renderer, Choice::Software);
        assert_eq!(stored.failed.len(), 3);
        assert_eq!(plan.failed_lines()[0], "wgpu on OpenGL: no adapter");
    }

    #[test]
    fn every_renderer_failing_leaves_nothing_to_try_and_lists_them_all() {
        let mut plan = Plan::new(WINDOWS, None, None);
        while let Some(c) = plan.next_choice() {
            plan.fail(c, "failed");
        }
        assert_eq!(plan.failed().len(), WINDOWS.len());
    }

    #[test]
    fn a_forced_choice_is_the_only_one_tried_and_is_not_remembered() {
        let forced = Forced {
            choices: vec![Choice::Glow],
            by: super::super::RENDERER_VARIABLE,
        };
        let remembered = Remembered {
            renderer: Choice::Vulkan,
            failed: vec![],
        };
        let mut plan = Plan::new(WINDOWS, Some(forced), Some(remembered));
        assert_eq!(plan.next_choice(), Some(Choice::Glow));
        assert_eq!(plan.to_remember(Choice::Glow), None);
        assert_eq!(plan.next_choice(), None);
        assert_eq!(
            plan.describe(Choice::Glow, None).forced_by.as_deref(),
            Some("CUDA_TRIAGE_RENDERER")
        );
    }

    #[test]
    fn a_remembered_renderer_this_platform_lacks_is_passed_over() {
        let remembered = Remembered {
            renderer: Choice::Metal,
            failed: vec![],
        };
        let mut plan = Plan::new(WINDOWS, None, Some(remembered));
        assert_eq!(plan.next_choice(), Some(Choice::Dx12));
    }
}
