//! What every dialog shares so that it fits the window (SPEC U1, U3, R4):
//! never larger than the window less its menu and status bars, its body
//! scrolling inside, and Close (or Esc) always in view below the body. A
//! student on a 1024×700 laptop must never lose the way out of a dialog
//! below the screen's edge. New run, the soak dialog, "Add run from
//! numbers" and Reproduce all draw through here, so they fit the same way.

use egui::{Context, ScrollArea, Ui, Vec2};

/// What a dialog leaves free of the window: across, a margin; down, the
/// menu bar, the status bar and a margin, so it never covers them.
const CHROME: Vec2 = egui::vec2(20.0, 110.0);

/// The smallest a dialog is made, whatever the window: below this its
/// fields would not be usable at all (the window's own minimum is larger).
const SMALLEST: Vec2 = egui::vec2(300.0, 200.0);

/// The first frame's guess at the footer's height (a separator and one row
/// of buttons); from then on the height it really took is used.
const FOOTER_GUESS: f32 = 40.0;

/// The largest a dialog may be in the window as it is now.
pub fn max_size(ctx: &Context) -> Vec2 {
    (ctx.content_rect().size() - CHROME).max(SMALLEST)
}

/// Makes a dialog drawn in an `egui::Modal` (which takes its content's
/// size) `width` wide, or the window's width less a margin when that is
/// less. Call it first, before anything is drawn.
pub fn fit_width(ui: &mut Ui, width: f32) {
    ui.set_width(width.min(max_size(ui.ctx()).x));
}

/// A dialog's body, which scrolls, above its footer, which stays in view:
/// what the `ui` has drawn before the body (a heading), the body and the
/// footer together take the height given, so Close — in the footer — is on
/// screen however long the body grows. The body takes that room however
/// little it holds, so the dialog keeps its size and its buttons their
/// place as the body changes (a preview arriving, a row picked, a field
/// shown): a button never moves away from the pointer about to click it.
///
/// Two steps, so body and footer may each borrow the dialog's state:
/// `let (footer, _) = Scrolling::body(ui, height, area, |ui| …);` then
/// `footer.footer(ui, |ui| …)`.
#[must_use = "draw the footer with Scrolling::footer"]
pub struct Scrolling {
    /// Where the footer's height is remembered from one frame to the next.
    id: egui::Id,
    /// The height the footer took the frame before (a problem line or a
    /// "Try once" result can make it taller), so the body gives way to it.
    footer_height: f32,
}

impl Scrolling {
    /// Draws `body` in `area`, no taller than leaves room for the footer
    /// within `max_height`; returns the footer to draw next, and what `body`
    /// returned.
    pub fn body<R>(ui: &mut Ui, max_height: f32, area: ScrollArea, body: impl FnOnce(&mut Ui) -> R) -> (Self, R) {
        let id = ui.make_persistent_id("dialog-footer-height");
        let footer_height = ui.data(|d| d.get_temp::<f32>(id)).unwrap_or(FOOTER_GUESS);
        let used = ui.cursor().top() - ui.min_rect().top();
        let room = (max_height - used - footer_height).max(SMALLEST.y / 2.0);
        let answer = area.auto_shrink([false, false]).max_height(room).min_scrolled_height(room).show(ui, body).inner;
        (Self { id, footer_height }, answer)
    }

    /// Draws the footer below a separator; returns what `footer` returns.
    pub fn footer<R>(self, ui: &mut Ui, footer: impl FnOnce(&mut Ui) -> R) -> R {
        let top = ui.cursor().top();
        ui.separator();
        let answer = footer(ui);
        let taken = ui.min_rect().bottom() - top;
        if (taken - self.footer_height).abs() > 0.5 {
            ui.data_mut(|d| d.insert_temp(self.id, taken));
            // One more frame lays the body out against the footer's real height.
            ui.ctx().request_repaint();
        }
        answer
    }
}

/// The Close button, with Esc as its key: true when either asks to close.
/// `held` says why the dialog cannot close now (a run of its own is still
/// going), shown on the greyed-out button; `esc` false leaves Esc to
/// something else (cancelling a measurement in flight).
pub fn close_button(ui: &mut Ui, held: Option<&str>, esc: bool) -> bool {
    let button = ui.add_enabled(held.is_none(), egui::Button::new("Close")).on_hover_text("Esc");
    let button = match held {
        Some(why) => button.on_disabled_hover_text(why),
        None => button,
    };
    button.clicked() || (held.is_none() && esc && ui.input(|i| i.key_pressed(egui::Key::Escape)))
}

/// A18 said as a build is typed: under a build that is a diagnostic (-O0,
/// or a compiler with no level), the warning, in a form grid's second
/// column, no wider than the fields (`width`), so the dialog does not grow.
pub fn build_warning_row(ui: &mut Ui, build: &str, width: f32) {
    if let Some(warning) = vernier_engine::notebook::build_warning(build) {
        ui.label("");
        ui.scope(|ui| {
            ui.set_max_width(width);
            ui.add(egui::Label::new(egui::RichText::new(warning).color(ui.visuals().warn_fg_color)).wrap());
        });
        ui.end_row();
    }
}
