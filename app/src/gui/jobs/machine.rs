//! The Environment's "Fill from this machine": the conditions read here
//! (`/proc`, `/sys`, the counter and placement probes).

use vernier_engine::notebook::pending::Edit;
use vernier_engine::platform::machine::Machine;

use super::super::io::{Done, Follow, Job};
use super::super::{VernierApp, views};

/// Reads this machine's conditions.
pub struct ReadMachine;

impl Job for ReadMachine {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let machine = Machine::read();
        Box::new(move |app: &mut VernierApp| {
            // One change for the three fields: one save, one message.
            let fields = views::machine_fill(&machine).to_vec();
            let said = "Machine / OS, Counter access and Placement control filled from this machine".to_owned();
            app.edit(Edit::SetEnvironment { fields, said });
        })
    }
}
