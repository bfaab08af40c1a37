//! The Environment's "Fill from this machine": the conditions read here
//! (`/proc`, `/sys`, the counter and placement probes).

use vernier_engine::platform::machine::Machine;

use super::super::Done;
use super::super::io::{Follow, Job};

/// Reads this machine's conditions.
pub struct ReadMachine;

impl Job for ReadMachine {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        Done::Machine(Box::new(Machine::read()))
    }
}
