//! [`Shared`]: a snapshot the panels share, compared by identity.
//!
//! Contract: a `Shared<T>` is an immutable `T` behind an `Rc`; two are equal exactly when
//! they are the same allocation. The simulation host ([`super::sim`]) replaces a snapshot
//! only when its content changed, so identity is the "changed?" test Yew's props
//! comparison needs, at the cost of a pointer compare. A plain `Rc<T>` compares contents
//! when `T` is not `Eq` (a report holds `f64`s): the checkpoint, chart, diagnosis, guide
//! and sink panels each compared the whole checkpoint history on every frame the page
//! re-rendered (5 % of the playing page's main thread on `large` at 100×). A new
//! allocation with equal content counts as changed: one re-render too many, never one
//! too few.

use std::ops::Deref;
use std::rc::Rc;

#[derive(Debug, Default)]
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(Rc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Rc::clone(&self.0))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Shared;

    /// Identity, not content: a clone is equal, an equal value cut anew is not (so a
    /// panel given a new snapshot re-renders even if nothing in it differs).
    #[test]
    fn equal_is_the_same_snapshot() {
        let a = Shared::new(vec![1.5_f64, f64::NAN]);
        assert!(
            a == a.clone(),
            "a clone is the same snapshot (even holding a NaN)"
        );
        assert!(a != Shared::new(vec![1.5, f64::NAN]));
        assert_eq!(a[0], 1.5, "reads through to the value");
    }
}
