//! Stage: call tree → unit scopes. A tree's weights share one unit, except a SystemTap
//! profile with off-CPU stacks: its on-CPU half counts samples and its off-CPU half
//! whatever the script summed (usually µs), each under a pseudo-frame of its own
//! (`[on-cpu]`, `[off-cpu]`). A share or a sum is only meaningful within one scope, so
//! every percentage is taken of the total of the scope its frame lies in, and function
//! totals are kept per scope: two units are never added into one figure.

use super::tree::{CallTree, NodeId};

/// Leading pseudo-frame of on-CPU stacks when the input has off-CPU stacks.
pub const ON_CPU: &str = "[on-cpu]";
/// Leading pseudo-frame of off-CPU stacks.
pub const OFF_CPU: &str = "[off-cpu]";

/// True for the names of the two half pseudo-frames.
pub fn is_half_name(name: &str) -> bool {
    name == ON_CPU || name == OFF_CPU
}

/// True when the tree is split into on- and off-CPU halves: it has root children and
/// every one is a half pseudo-frame.
pub fn is_halved(tree: &CallTree) -> bool {
    !tree.is_leaf(NodeId::ROOT)
        && tree
            .children(NodeId::ROOT)
            .all(|c| is_half_name(tree.name(c)))
}

/// The scopes whose weights share a unit: the halves (on-CPU first) of a halved tree,
/// else the root alone.
pub fn unit_scopes(tree: &CallTree) -> Vec<NodeId> {
    if !is_halved(tree) {
        return vec![NodeId::ROOT];
    }
    [ON_CPU, OFF_CPU]
        .into_iter()
        .filter_map(|n| tree.child_named(NodeId::ROOT, n))
        .collect()
}

/// The scope frame `id` lies in: its half in a halved tree (the root itself has none and
/// gets the root), else the root.
pub fn scope_of(tree: &CallTree, id: NodeId) -> NodeId {
    if id == NodeId::ROOT || !is_halved(tree) {
        return NodeId::ROOT;
    }
    let mut at = id;
    while let Some(p) = tree.node(at).parent {
        if p == NodeId::ROOT {
            return at;
        }
        at = p;
    }
    NodeId::ROOT
}

/// The total `id`'s percentages are taken of: its scope's total.
pub fn share_base(tree: &CallTree, id: NodeId) -> u64 {
    tree.node(scope_of(tree, id)).total
}

/// A short label for a scope: `on-CPU`, `off-CPU`, or `""` for the whole tree.
pub fn scope_label(tree: &CallTree, scope: NodeId) -> &'static str {
    if scope == NodeId::ROOT {
        return "";
    }
    match tree.name(scope) {
        ON_CPU => "on-CPU",
        OFF_CPU => "off-CPU",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_are_scopes() {
        let t = CallTree::from_stacks(&[("[on-cpu];a;f", 3), ("[off-cpu];b;f", 7000)]);
        assert!(is_halved(&t));
        let scopes = unit_scopes(&t);
        assert_eq!(scopes.len(), 2);
        assert_eq!(t.name(scopes[0]), ON_CPU);
        let f = t.child_named(scopes[1], "b").unwrap();
        assert_eq!(scope_of(&t, f), scopes[1]);
        assert_eq!(share_base(&t, f), 7000);
        assert_eq!(share_base(&t, NodeId::ROOT), 7003);
        assert_eq!(scope_label(&t, scopes[1]), "off-CPU");

        let plain = CallTree::from_stacks(&[("[on-cpu];a", 3), ("main;b", 7)]);
        assert!(!is_halved(&plain));
        assert_eq!(unit_scopes(&plain), vec![NodeId::ROOT]);
        let b = plain.child_named(NodeId::ROOT, "main").unwrap();
        assert_eq!(share_base(&plain, b), 10);
        assert!(!is_halved(&CallTree::new()));
    }
}
