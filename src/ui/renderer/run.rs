//! Opening the window: each renderer of the [`Plan`] in turn until one paints a frame. eframe
//! returns an error when a renderer cannot start (no adapter, a lost device, no surface, no GL
//! context); that error before the first frame moves on to the next renderer, with the same app
//! (eframe keeps one event loop for the thread, so the window can be opened again). Each failure
//! and the renderer that drew are logged on stderr; the one that drew is remembered.

use super::attempt::{Attempt, Slot};
use super::{Choice, Forced, Plan, memory, options};
use crate::ui::TriageApp;
use crate::ui::prefs::Prefs;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Why the window did not open, or stopped.
#[derive(Debug)]
pub enum WindowError {
    /// The window was drawn, then eframe stopped with this error.
    Failed(eframe::Error),
    /// No renderer could draw it: each one tried, with its error.
    NoRenderer(Vec<String>),
}

impl std::fmt::Display for WindowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WindowError::Failed(e) => write!(f, "{e}"),
            WindowError::NoRenderer(tried) if tried.is_empty() => {
                write!(f, "no renderer was tried")
            }
            WindowError::NoRenderer(tried) => {
                write!(f, "no renderer could draw it; tried {}", tried.join("; "))
            }
        }
    }
}

impl std::error::Error for WindowError {}

/// Runs `app` in a window until it is closed, trying the renderers in order; `base` gives the
/// options every attempt starts from.
pub fn open_window(
    app: TriageApp,
    base: impl Fn() -> eframe::NativeOptions,
) -> Result<(), WindowError> {
    let mut plan = Plan::new(Choice::platform_order(), Forced::from_env(), memory::load());
    let slot: Slot<TriageApp> = Rc::new(RefCell::new(Some(app)));
    while let Some(choice) = plan.next_choice() {
        if slot.borrow().is_none() {
            break; // cannot happen: an attempt that did not paint hands the app back
        }
        let painted = Rc::new(Cell::new(false));
        let result = eframe::run_native(
            crate::ui::APP_NAME,
            options::native_options(choice, base()),
            creator(choice, &plan, slot.clone(), painted.clone()),
        );
        if painted.get() {
            return result.map_err(WindowError::Failed);
        }
        match result {
            // Closed before its first frame.
            Ok(()) => return Ok(()),
            Err(e) => {
                let error = e.to_string();
                let then = plan
                    .upcoming()
                    .map(|next| format!("; trying {}", next.label()))
                    .unwrap_or_default();
                eprintln!(
                    "cuda-triage: {} could not draw the window ({error}){then}",
                    choice.label()
                );
                plan.fail(choice, error);
            }
        }
    }
    Err(WindowError::NoRenderer(plan.failed_lines()))
}

/// The app creator of one attempt: the app from the slot, told how it is drawn, wrapped to see
/// its first frame painted (then the renderer is logged and remembered).
fn creator<'a>(
    choice: Choice,
    plan: &Plan,
    slot: Slot<TriageApp>,
    painted: Rc<Cell<bool>>,
) -> eframe::AppCreator<'a> {
    let plan = plan.clone();
    Box::new(move |cc| {
        let mut app = slot
            .borrow_mut()
            .take()
            .ok_or("the wizard was lost between renderer attempts")?;
        let drawn = plan.describe(choice, options::drawn_with(cc));
        app.renderer = Some(drawn.clone());
        app.restore(Prefs::load(cc.storage));
        let to_remember = plan.to_remember(choice);
        let on_painted = Box::new(move || {
            eprintln!("cuda-triage: window drawn with {}", drawn.summary());
            if let Some(remembered) = to_remember
                && let Err(e) = memory::store(&remembered)
            {
                eprintln!("cuda-triage: could not remember the renderer: {e}");
            }
        });
        Ok(Box::new(Attempt::new(app, slot, painted, on_painted)))
    })
}
