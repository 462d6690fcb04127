//! Systems and their schedule: functions over the world, run in a fixed order.

use crate::world::World;

/// A unit of game logic that reads and writes the world once per tick.
pub trait System {
    fn name(&self) -> &str;
    fn run(&mut self, world: &mut World);
}

impl<F: FnMut(&mut World)> System for (&'static str, F) {
    fn name(&self) -> &str {
        self.0
    }
    fn run(&mut self, world: &mut World) {
        (self.1)(world)
    }
}

/// Runs systems in the order they were added, once per `tick`.
#[derive(Default)]
pub struct Schedule {
    systems: Vec<Box<dyn System>>,
    ticks: u64,
}

impl Schedule {
    pub fn new() -> Schedule {
        Schedule::default()
    }

    /// Adds a system at the end of the schedule.
    pub fn add_system(&mut self, system: impl System + 'static) -> &mut Self {
        self.systems.push(Box::new(system));
        self
    }

    /// Runs every system once, in order, and advances the tick counter.
    pub fn tick(&mut self, world: &mut World) {
        for system in &mut self.systems {
            system.run(world);
        }
        self.ticks += 1;
    }

    /// Names of the systems in run order (for debugging a frame).
    pub fn order(&self) -> Vec<&str> {
        self.systems.iter().map(|s| s.name()).collect()
    }
}
