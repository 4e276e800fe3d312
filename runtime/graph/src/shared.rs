//! [`Shared`]: a graph's large arrays, shared (not copied) by the graph, its clones and the runs over it.
//!
//! A run on the CPU reads the graph where it already is: its row offsets and edges are the program's graph
//! buffers, with no copy per run (kron22's edges alone are 513 MB, about a tenth of a second to copy on two cores).
//! The arrays are reference-counted, so a run keeps them alive however long it lasts, and copy-on-write: whoever
//! changes an array that a run (or a clone) still holds gets a fresh copy ([`Shared::make_mut`]), so a shared
//! array never changes under its readers.

use std::ops::Deref;
use std::sync::Arc;

/// A reference-counted, copy-on-write array. It reads as a `Vec<T>`; writing needs [`Shared::make_mut`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Shared<T>(Arc<Vec<T>>);

impl<T: Clone> Shared<T> {
    /// The array, to change: copied first if anyone else holds it.
    pub fn make_mut(&mut self) -> &mut Vec<T> {
        Arc::make_mut(&mut self.0)
    }

    /// The array as an owned vector, copied only if anyone else holds it.
    pub fn into_vec(self) -> Vec<T> {
        Arc::unwrap_or_clone(self.0)
    }
}

impl<T> Shared<T> {
    /// Whether `a` and `b` are the same array (not merely equal ones).
    pub fn same(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Shared<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self.0 == *other
    }
}

impl<T> From<Vec<T>> for Shared<T> {
    fn from(v: Vec<T>) -> Shared<T> {
        Shared(Arc::new(v))
    }
}

impl<T> FromIterator<T> for Shared<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Shared<T> {
        Shared(Arc::new(iter.into_iter().collect()))
    }
}

impl<T: Send> rayon::iter::FromParallelIterator<T> for Shared<T> {
    fn from_par_iter<I: rayon::iter::IntoParallelIterator<Item = T>>(iter: I) -> Shared<T> {
        Shared(Arc::new(Vec::from_par_iter(iter)))
    }
}

impl<'a, T> IntoIterator for &'a Shared<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_to_a_held_array_copies_it() {
        let mut a: Shared<u32> = vec![1, 2, 3].into();
        let run = a.clone();
        assert!(Shared::same(&a, &run));
        a.make_mut()[0] = 9;
        assert_eq!(*run, vec![1, 2, 3], "the holder's array is unchanged");
        assert_eq!(*a, vec![9, 2, 3]);
        assert!(!Shared::same(&a, &run));
        // Alone, the array is changed in place.
        let before = a.as_ptr();
        a.make_mut()[1] = 8;
        assert_eq!(a.as_ptr(), before);
    }
}
