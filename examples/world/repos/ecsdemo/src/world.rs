//! The world: owns every entity and every archetype.

use std::any::TypeId;
use std::collections::HashMap;

use crate::archetype::{Archetype, Bundle, ComponentSet};

/// A generational handle to an entity. A stale handle never aliases a newer entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entity {
    pub index: u32,
    pub generation: u32,
}

/// Where an entity's components live: which archetype, which row.
#[derive(Debug, Clone, Copy)]
struct Location {
    archetype: usize,
    row: usize,
}

/// Holds all entities and their components, grouped by archetype.
#[derive(Default)]
pub struct World {
    archetypes: Vec<Archetype>,
    by_components: HashMap<ComponentSet, usize>,
    locations: Vec<Option<Location>>,
    generations: Vec<u32>,
    free: Vec<u32>,
}

impl World {
    /// Creates an empty world.
    pub fn new() -> World {
        World::default()
    }

    /// Spawns a new entity with the components of `bundle` and returns its handle.
    ///
    /// Reuses a freed index when one is available, bumping its generation.
    pub fn spawn_entity<B: Bundle>(&mut self, bundle: B) -> Entity {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.generations.push(0);
                self.locations.push(None);
                (self.generations.len() - 1) as u32
            }
        };
        let entity = Entity { index, generation: self.generations[index as usize] };
        let archetype = self.archetype_for(B::component_set());
        let row = self.archetypes[archetype].push(entity, bundle);
        self.locations[index as usize] = Some(Location { archetype, row });
        entity
    }

    /// Removes an entity and drops all of its components. Returns false if the handle
    /// was already stale.
    pub fn despawn(&mut self, entity: Entity) -> bool {
        let Some(location) = self.location(entity) else { return false };
        if let Some(moved) = self.archetypes[location.archetype].swap_remove(location.row) {
            // The last row took the removed row's place: fix its location.
            self.locations[moved.index as usize] = Some(location);
        }
        self.locations[entity.index as usize] = None;
        self.generations[entity.index as usize] += 1;
        self.free.push(entity.index);
        true
    }

    /// Whether the handle still names a live entity.
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.location(entity).is_some()
    }

    fn location(&self, entity: Entity) -> Option<Location> {
        let generation = *self.generations.get(entity.index as usize)?;
        if generation != entity.generation {
            return None;
        }
        self.locations[entity.index as usize]
    }

    /// The archetype storing exactly `set`, created on first use.
    fn archetype_for(&mut self, set: ComponentSet) -> usize {
        if let Some(&id) = self.by_components.get(&set) {
            return id;
        }
        self.archetypes.push(Archetype::new(set.clone()));
        let id = self.archetypes.len() - 1;
        self.by_components.insert(set, id);
        id
    }

    /// Archetypes whose component set contains every type in `wanted`.
    pub(crate) fn matching_archetypes<'w>(&'w self, wanted: &'w [TypeId]) -> impl Iterator<Item = &'w Archetype> + 'w {
        self.archetypes.iter().filter(move |a| a.components().contains_all(wanted))
    }

    pub(crate) fn archetypes_mut(&mut self) -> &mut [Archetype] {
        &mut self.archetypes
    }

    /// Number of live entities.
    pub fn len(&self) -> usize {
        self.archetypes.iter().map(Archetype::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
