//! The module structure of `src/`: no file imports one that imports it back, directly or
//! through others. An edge runs from a file to the module file that defines what a
//! `crate::…`, `super::…` or `self::…` path names (its longest module prefix); a parent
//! module's declarations and re-exports of its own children are a facade, not an edge.
//! Test modules (`#[cfg(test)]` and on, `*_tests.rs`) are left out.
//!
//! There is no circle: any fails. (`app/` had one of 18 files until issue 31 moved each
//! screen's state below the explorer that holds it.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["input", "perf_data", "check"]`) → file, for every `.rs` under `dir`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut todo = vec![src.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts
                .last()
                .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
            {
                parts.pop();
            }
            if parts
                .last()
                .is_some_and(|l| l.ends_with("_tests") || l == "tests")
            {
                continue;
            }
            out.insert(parts, path);
        }
    }
    out
}

/// The edges of the import graph, by module path.
fn edges(mods: &BTreeMap<Vec<String>, PathBuf>) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let path_re =
        regex::Regex::new(r"\b((?:crate|super|self)(?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)")
            .unwrap();
    let group_re = regex::Regex::new(
        r"(?s)\buse\s+((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\}",
    )
    .unwrap();
    let nested = regex::Regex::new(r"\{[^}]*\}").unwrap();
    let comment = regex::Regex::new(r"//[^\n]*").unwrap();
    let mut out = BTreeMap::new();
    for (module, file) in mods {
        let text = std::fs::read_to_string(file).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let text = comment.replace_all(text, "");
        let name = file.file_name().unwrap().to_string_lossy();
        let is_parent = matches!(&*name, "mod.rs" | "lib.rs" | "main.rs");
        let mut paths: Vec<String> = path_re
            .captures_iter(&text)
            .map(|c| c[1].to_owned())
            .collect();
        for g in group_re.captures_iter(&text) {
            for item in nested.replace_all(&g[2], "").split(',') {
                let item = item.split(" as ").next().unwrap_or("").trim();
                if !item.is_empty() && item != "self" {
                    paths.push(format!("{}::{item}", &g[1]));
                }
            }
        }
        let mut to = BTreeSet::new();
        for p in paths {
            let parts: Vec<&str> = p.split("::").collect();
            // `crate::` from the root, `self::` from this module, `super::` from its parent
            // (a mod.rs's `super` too: its module is its directory's).
            let (mut base, mut rest): (Vec<String>, &[&str]) = match parts[0] {
                "crate" => (Vec::new(), &parts[1..]),
                "self" => (module.clone(), &parts[1..]),
                _ => (
                    module[..module.len().saturating_sub(1)].to_vec(),
                    &parts[1..],
                ),
            };
            while let Some((&"super", more)) = rest.split_first() {
                base.pop();
                rest = more;
            }
            let full: Vec<String> = base
                .into_iter()
                .chain(rest.iter().map(|s| (*s).to_owned()))
                .collect();
            for k in (0..=full.len()).rev() {
                let target = &full[..k];
                if let Some(_file) = mods.get(target) {
                    let own_child =
                        is_parent && target.starts_with(module) && target.len() > module.len();
                    if target != &module[..] && !own_child {
                        to.insert(target.to_vec());
                    }
                    break;
                }
            }
        }
        out.insert(module.clone(), to);
    }
    out
}

/// The strongly connected sets of more than one module (Tarjan, iteratively).
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<BTreeSet<Vec<String>>> {
    let nodes: Vec<&Vec<String>> = edges.keys().collect();
    let at: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges[*n]
                .iter()
                .filter_map(|t| at.get(t).copied())
                .collect()
        })
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some((v, i)) = work.pop() {
            if i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(i) {
                work.push((v, i + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if low[v] == index[v] {
                let mut set = BTreeSet::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    set.insert(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    out.push(set);
                }
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
        }
    }
    out
}

#[test]
fn no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    let found = circles(&edges(&mods));
    let names =
        |c: &BTreeSet<Vec<String>>| -> Vec<String> { c.iter().map(|m| m.join("/")).collect() };
    assert!(
        found.is_empty(),
        "import circles: {:?}",
        found.iter().map(names).collect::<Vec<_>>()
    );
}

#[test]
fn the_circle_finder_finds_a_circle() {
    // a → b → c → a, and d → a (outside it).
    let m = |s: &str| vec![s.to_owned()];
    let edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = [
        (m("a"), BTreeSet::from([m("b")])),
        (m("b"), BTreeSet::from([m("c")])),
        (m("c"), BTreeSet::from([m("a")])),
        (m("d"), BTreeSet::from([m("a")])),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&edges), [BTreeSet::from([m("a"), m("b"), m("c")])]);
}

/// The viewer's screens, each a directory of `app/` (its logic in `mod.rs`, its plain data
/// in `state.rs`).
const SCREENS: [&str; 8] = [
    "table", "finder", "sandwich", "heat", "tasks", "search", "compare", "source",
];

/// The screen a module belongs to, if any.
fn screen_of(module: &[String]) -> Option<&str> {
    match module {
        [app, screen, ..] if app == "app" => SCREENS.iter().copied().find(|s| s == screen),
        _ => None,
    }
}

/// A screen reaches no other screen's logic: it may read another's plain data (its
/// `state` module: the comparison's finder is the finder's state), never call into it.
/// The router (`app::tools`, `app::dispatch`, `app::screens`) is the one place that knows
/// them all. Each screen's state lies below the explorer that holds it.
#[test]
fn a_screen_imports_no_other_screen() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    let mut wrong = Vec::new();
    for (from, tos) in &edges(&mods) {
        let Some(a) = screen_of(from) else { continue };
        for to in tos {
            let other = screen_of(to).filter(|&b| b != a);
            let is_state = to.last().is_some_and(|m| m == "state");
            if other.is_some() && !is_state {
                wrong.push(format!("{} → {}", from.join("/"), to.join("/")));
            }
            // A screen's state never reaches up to the explorer or a screen's logic.
            let from_state = from.last().is_some_and(|m| m == "state");
            if from_state
                && (to.as_slice() == ["app", "explorer"] || (screen_of(to).is_some() && !is_state))
            {
                wrong.push(format!("{} → {}", from.join("/"), to.join("/")));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Every screen is there (a renamed one must be named here too).
    for s in SCREENS {
        assert!(
            mods.contains_key(&vec!["app".to_owned(), s.to_owned()]),
            "no screen {s}"
        );
    }
}

/// The parsers are the input stage's internals: `input/mod.rs` declares none of them `pub`
/// (the library's API is `load_path`, `load_reader`, `LoadOptions` and the `Profile`
/// constructors), so a host cannot come to depend on a parser's types.
#[test]
fn the_parsers_are_private() {
    let mod_rs = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/input/mod.rs");
    let text = std::fs::read_to_string(mod_rs).unwrap();
    let public: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("pub mod "))
        .collect();
    assert!(public.is_empty(), "public parser modules: {public:?}");
}

/// Lines of code of a source file before its test module: not blank, not a `//` comment.
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].starts_with("#[cfg(test)]") && w[1].starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

/// No source file grows past about 400 lines of code (tests apart: `tests.rs`,
/// `*_tests.rs` and a file's test module): a file that does has more than one job, and
/// gets split along its seams (issue 31 split thirteen).
#[test]
fn no_file_is_past_400_lines_of_code() {
    const MOST: usize = 410;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut long = Vec::new();
    let mut todo = vec![src];
    let mut files = Vec::new();
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 100, "{} files", files.len());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let n = code_lines(&std::fs::read_to_string(&path).unwrap());
        if n > MOST {
            let rel = path
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(&path);
            long.push(format!("{}: {n}", rel.display()));
        }
    }
    assert!(
        long.is_empty(),
        "files past {MOST} lines of code: {long:#?}"
    );
    assert_eq!(
        code_lines("use a;\n\n// note\nfn f() {}\n#[cfg(test)]\nmod tests {\n}\n"),
        2
    );
}
