//! Archetype storage: one table per distinct set of component types.

use std::any::{Any, TypeId};

use crate::world::Entity;

/// A sorted set of component types: the identity of an archetype.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ComponentSet(Vec<TypeId>);

impl ComponentSet {
    pub fn new(mut types: Vec<TypeId>) -> ComponentSet {
        types.sort();
        types.dedup();
        ComponentSet(types)
    }

    /// Whether every type of `wanted` is in this set.
    pub fn contains_all(&self, wanted: &[TypeId]) -> bool {
        wanted.iter().all(|t| self.0.binary_search(t).is_ok())
    }

    pub fn types(&self) -> &[TypeId] {
        &self.0
    }
}

/// A group of components that can be spawned together.
pub trait Bundle: 'static {
    fn component_set() -> ComponentSet;
    fn into_columns(self) -> Vec<Box<dyn Any>>;
}

impl<A: 'static, B: 'static> Bundle for (A, B) {
    fn component_set() -> ComponentSet {
        ComponentSet::new(vec![TypeId::of::<A>(), TypeId::of::<B>()])
    }
    fn into_columns(self) -> Vec<Box<dyn Any>> {
        vec![Box::new(self.0), Box::new(self.1)]
    }
}

/// A table of entities sharing one component set: one column per component type,
/// one row per entity. Rows are dense; removal swaps the last row in.
pub struct Archetype {
    components: ComponentSet,
    entities: Vec<Entity>,
    columns: Vec<Vec<Box<dyn Any>>>,
}

impl Archetype {
    pub fn new(components: ComponentSet) -> Archetype {
        let columns = components.types().iter().map(|_| Vec::new()).collect();
        Archetype { components, entities: Vec::new(), columns }
    }

    pub fn components(&self) -> &ComponentSet {
        &self.components
    }

    /// Appends a row; returns its index.
    pub fn push<B: Bundle>(&mut self, entity: Entity, bundle: B) -> usize {
        for (column, value) in self.columns.iter_mut().zip(bundle.into_columns()) {
            column.push(value);
        }
        self.entities.push(entity);
        self.entities.len() - 1
    }

    /// Removes a row by swapping the last row into its place. Returns the entity that
    /// moved, if any, so the caller can update its location.
    pub fn swap_remove(&mut self, row: usize) -> Option<Entity> {
        for column in &mut self.columns {
            column.swap_remove(row);
        }
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// The column of component type `T`, if this archetype stores it.
    pub fn column<T: 'static>(&self) -> Option<impl Iterator<Item = &T>> {
        let i = self.components.types().iter().position(|t| *t == TypeId::of::<T>())?;
        Some(self.columns[i].iter().filter_map(|b| b.downcast_ref::<T>()))
    }

    pub fn len(&self) -> usize {
        self.entities.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}
