//! The app as one renderer attempt runs it: it counts frames, and the second `ui` call (the
//! first frame was painted) marks the attempt a success and runs what success does (remember
//! the renderer, say which it is). An attempt dropped before that — its renderer failed on the
//! first frame — hands the app back to the slot it came from, for the next renderer.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Where the app waits between attempts.
pub type Slot<A> = Rc<RefCell<Option<A>>>;

/// One attempt's app.
pub struct Attempt<A> {
    app: Option<A>,
    slot: Slot<A>,
    painted: Rc<Cell<bool>>,
    on_painted: Option<Box<dyn FnOnce()>>,
    frames: u32,
}

impl<A> Attempt<A> {
    /// `app`, taken from `slot`; `painted` is set once a frame was painted, and `on_painted` runs
    /// then.
    pub fn new(
        app: A,
        slot: Slot<A>,
        painted: Rc<Cell<bool>>,
        on_painted: Box<dyn FnOnce()>,
    ) -> Self {
        Attempt {
            app: Some(app),
            slot,
            painted,
            on_painted: Some(on_painted),
            frames: 0,
        }
    }
}

impl<A: eframe::App> eframe::App for Attempt<A> {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.frames = self.frames.saturating_add(1);
        match self.frames {
            // A second frame comes at once, to learn that this one was painted.
            1 => ui.ctx().request_repaint(),
            2 => {
                self.painted.set(true);
                if let Some(done) = self.on_painted.take() {
                    done();
                }
            }
            _ => {}
        }
        if let Some(app) = &mut self.app {
            app.ui(ui, frame);
        }
        if self.frames == 2 {
            crate::ui::first_frame::painted();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if let Some(app) = &mut self.app {
            app.save(storage);
        }
    }
}

impl<A> Drop for Attempt<A> {
    fn drop(&mut self) {
        if !self.painted.get()
            && let Some(app) = self.app.take()
        {
            *self.slot.borrow_mut() = Some(app);
        }
    }
}
