//! The messages channel's index of list positions by message id (issue 17): hashbrown's
//! [`HashTable`] of positions, hashed by the id (Fx) and compared against the list itself, so the
//! ids are not stored a second time (a `HashMap<String, usize>` held a copy of every id: ~40 B
//! a message of 10,000; this holds ~8).

use crate::message::Message;
use hashbrown::HashTable;
use std::hash::BuildHasher;
use std::rc::Rc;

/// Positions in a message list by id. Every position held is one of the list's, and names the
/// message whose id it was inserted for; the list is passed in to compare ids.
#[derive(Debug, Clone, Default)]
pub(super) struct IdIndex {
    table: HashTable<u32>,
}

/// The hash of an id (Fx: ids are short; inputs are bounded, see Cargo.toml).
pub(super) fn hash_id(id: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(id)
}

fn id_at(list: &[Rc<Message>], i: u32) -> Option<&str> {
    list.get(usize::try_from(i).ok()?)?.id.as_deref()
}

impl IdIndex {
    /// The position of `id` in `list`.
    pub(super) fn get(&self, list: &[Rc<Message>], id: &str) -> Option<usize> {
        self.table.find(hash_id(id), |&i| id_at(list, i) == Some(id)).map(|&i| i as usize)
    }

    /// Records that the message at `at` in `list` has `id` (not in the index yet); false when
    /// `at` does not fit (a list of over 4 billion messages).
    pub(super) fn insert(&mut self, list: &[Rc<Message>], id: &str, at: usize) -> bool {
        let Ok(at) = u32::try_from(at) else { return false };
        self.table.insert_unique(hash_id(id), at, |&i| id_at(list, i).map_or(0, hash_id));
        true
    }

    /// Records that a message with `id` (not in the index yet) was inserted at `at` in `list`,
    /// which holds it already: the positions from `at` on move up one (none when it was appended,
    /// so inserting in order costs no more than appending). False when `at` does not fit.
    pub(super) fn inserted(&mut self, list: &[Rc<Message>], id: &str, at: usize) -> bool {
        let Ok(from) = u32::try_from(at) else { return false };
        if at + 1 < list.len() {
            for i in self.table.iter_mut().filter(|i| **i >= from) {
                *i = i.saturating_add(1);
            }
        }
        self.insert(list, id, at)
    }

    /// Forgets the entry made for the id hashing to `hash` at position `at` (an append undone).
    pub(super) fn forget(&mut self, hash: u64, at: usize) {
        if let Ok(entry) = self.table.find_entry(hash, |&i| i as usize == at) {
            entry.remove();
        }
    }

    /// Makes room for `n` more positions of `list`.
    pub(super) fn reserve(&mut self, list: &[Rc<Message>], n: usize) {
        self.table.reserve(n, |&i| id_at(list, i).map_or(0, hash_id));
    }

    /// Empties it.
    pub(super) fn clear(&mut self) {
        self.table.clear();
    }

    /// The index of `list` (an id held twice at its last position). Returns false when two
    /// messages share an id, or the list is too long to index.
    pub(super) fn rebuild(&mut self, list: &[Rc<Message>]) -> bool {
        self.table.clear();
        self.table.reserve(list.len(), |&i| id_at(list, i).map_or(0, hash_id));
        let mut unique = true;
        for (at, m) in list.iter().enumerate() {
            let Some(id) = m.id.as_deref() else { continue };
            let (Some(slot), Ok(at)) =
                (self.table.find_mut(hash_id(id), |&i| id_at(list, i) == Some(id)), u32::try_from(at))
            else {
                unique &= self.insert(list, id, at);
                continue;
            };
            *slot = at;
            unique = false;
        }
        unique
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;

    fn list(ids: &[&str]) -> Vec<Rc<Message>> {
        ids.iter().map(|id| Rc::new(Message { id: Some(id.to_string()), ..Message::new(Role::User, "x") })).collect()
    }

    #[test]
    fn positions_are_found_by_id_against_the_list() {
        let mut l = list(&["a", "b"]);
        let mut ix = IdIndex::default();
        assert!(ix.rebuild(&l));
        assert_eq!((ix.get(&l, "a"), ix.get(&l, "b"), ix.get(&l, "c")), (Some(0), Some(1), None));
        // An append, then undone.
        l.extend(list(&["c"]));
        assert!(ix.insert(&l, "c", 2));
        assert_eq!(ix.get(&l, "c"), Some(2));
        ix.forget(hash_id("c"), 2);
        l.truncate(2);
        assert_eq!(ix.get(&l, "c"), None);
        assert_eq!(ix.get(&l, "b"), Some(1));
        // Many, through growth (the table rehashes against the list).
        let many: Vec<String> = (0..1000).map(|i| format!("m{i}")).collect();
        let l = list(&many.iter().map(String::as_str).collect::<Vec<_>>());
        let mut ix = IdIndex::default();
        for (at, id) in many.iter().enumerate() {
            assert!(ix.insert(&l, id, at));
        }
        assert!(many.iter().enumerate().all(|(at, id)| ix.get(&l, id) == Some(at)));
        // Inserted in the middle, then at the end: the positions after it move up.
        let mut l = list(&["a", "b", "c"]);
        assert!(ix.rebuild(&l));
        l.insert(1, list(&["x"]).remove(0));
        assert!(ix.inserted(&l, "x", 1));
        l.push(list(&["y"]).remove(0));
        assert!(ix.inserted(&l, "y", 4));
        let mut again = IdIndex::default();
        assert!(again.rebuild(&l));
        assert!(
            ["a", "x", "b", "c", "y"].iter().all(|id| ix.get(&l, id) == again.get(&l, id)),
            "{:?}",
            ix.get(&l, "b")
        );
        assert_eq!(ix.get(&l, "c"), Some(3));
        // Two messages sharing an id: not unique, the last position is held.
        let l = list(&["a", "b", "a"]);
        assert!(!ix.rebuild(&l));
        assert_eq!(ix.get(&l, "a"), Some(2));
        ix.clear();
        assert_eq!(ix.get(&l, "b"), None);
    }
}
