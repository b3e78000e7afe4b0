//! Stage: call tree → call tree. The order of siblings: alphabetical (FlameGraph's, stable
//! for comparisons) or heaviest first. Only the order of child lists changes; weights, ids
//! and names stay, so the result lays out and searches like any finished tree.

use std::fmt;

use super::tree::CallTree;

/// How siblings are ordered left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Order {
    /// By name, byte order (as FlameGraph and inferno draw).
    #[default]
    Alpha,
    /// Heaviest first, ties by name.
    Weight,
}

impl Order {
    /// The other order.
    #[must_use]
    pub fn toggled(self) -> Self {
        match self {
            Order::Alpha => Order::Weight,
            Order::Weight => Order::Alpha,
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::Alpha => "alphabetical",
            Order::Weight => "by weight",
        })
    }
}

/// Re-orders every child list of `tree`.
pub fn sort(tree: &mut CallTree, order: Order) {
    match order {
        Order::Alpha => tree.finish(),
        Order::Weight => tree.sort_by_weight(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::NodeId;

    fn names(t: &CallTree, id: NodeId) -> Vec<&str> {
        t.children(id).map(|c| t.name(c)).collect()
    }

    #[test]
    fn weight_order_is_heaviest_first_then_by_name() {
        let mut t = CallTree::new();
        t.insert(["a", "x"], 1);
        t.insert(["b"], 5);
        t.insert(["c"], 5);
        t.insert(["a", "y"], 2);
        t.insert(["a", "z"], 9);
        t.finish();
        assert_eq!(names(&t, NodeId::ROOT), ["a", "b", "c"]);
        sort(&mut t, Order::Weight);
        assert_eq!(names(&t, NodeId::ROOT), ["a", "b", "c"]);
        let a = t.child_named(NodeId::ROOT, "a").unwrap();
        assert_eq!(names(&t, a), ["z", "y", "x"]);
        sort(&mut t, Order::Alpha);
        assert_eq!(names(&t, a), ["x", "y", "z"]);
        assert_eq!(Order::Alpha.toggled(), Order::Weight);
        assert_eq!(Order::Weight.to_string(), "by weight");
    }
}
