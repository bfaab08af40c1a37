//! The Environment's "Fill from this machine": the conditions read here
//! (`/proc`, `/sys`, the counter and placement probes).

use vernier_engine::notebook::pending::Edit;
use vernier_engine::platform::machine::Machine;

use super::super::Done;
use super::super::io::{Follow, Job};
use super::super::{VernierApp, views};

/// Reads this machine's conditions.
pub struct ReadMachine;

impl Job for ReadMachine {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        Done::Machine(Box::new(Machine::read()))
    }
}

impl VernierApp {
    /// This machine read: its three Environment fields filled, in one
    /// change (one save, one message).
    pub(in crate::gui) fn machine_read(&mut self, machine: &Machine) {
        let fields = views::machine_fill(machine).to_vec();
        let said = "Machine / OS, Counter access and Placement control filled from this machine".to_owned();
        self.edit(Edit::SetEnvironment { fields, said });
    }
}
