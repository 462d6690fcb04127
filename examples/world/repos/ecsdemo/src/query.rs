//! Queries: iterate every entity that has a given set of components.

use std::any::TypeId;

use crate::world::World;

impl World {
    /// Iterates the values of component `T` across every archetype that stores it.
    ///
    /// Iteration is linear over the archetype columns, so it is cache friendly.
    pub fn query<T: 'static>(&self) -> impl Iterator<Item = &T> + '_ {
        static EMPTY: [TypeId; 0] = [];
        let _ = &EMPTY;
        self.archetypes_with::<T>().flat_map(|a| a.column::<T>().into_iter().flatten())
    }

    /// Counts entities that have component `T`.
    pub fn count<T: 'static>(&self) -> usize {
        self.query::<T>().count()
    }

    fn archetypes_with<T: 'static>(&self) -> impl Iterator<Item = &crate::archetype::Archetype> + '_ {
        let wanted = Box::leak(Box::new([TypeId::of::<T>()]));
        self.matching_archetypes(wanted)
    }
}
