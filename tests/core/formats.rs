//! The one list of formats (`profile::FORMATS`, issue 31): the README's formats table,
//! `--help`, `--format`'s parsing and `FormatChoice` all agree with it.

use std::collections::BTreeSet;
use std::process::Command;

use clap::Parser;
use flametui::cli::Args;
use flametui::input::FormatChoice;
use flametui::profile::FORMATS;

const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// The `--format` names of the table, in its order.
fn cli_names() -> Vec<&'static str> {
    FORMATS.iter().filter_map(|f| f.cli).collect()
}

/// Runs the binary and returns its standard output with every run of white space one space
/// (clap pads and wraps help to the terminal's width).
fn output_words(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The README's table whose first column is `--format`: the names in that column.
fn readme_format_names() -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let mut lines = readme
        .lines()
        .skip_while(|l| !l.starts_with("| `--format` |"));
    assert!(lines.next().is_some(), "README.md has no `--format` table");
    lines
        .skip(1) // | --- | --- |
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cell = row.split('|').nth(1).unwrap().trim();
            let name = cell.strip_prefix('`').and_then(|c| c.strip_suffix('`'));
            name.unwrap_or_else(|| panic!("README row without a `name`: {row}"))
                .to_owned()
        })
        .collect()
}

#[test]
fn readme_formats_table_has_a_row_for_every_format() {
    let readme = readme_format_names();
    let unique: BTreeSet<&str> = readme.iter().map(String::as_str).collect();
    assert_eq!(
        unique.len(),
        readme.len(),
        "a format has two rows: {readme:?}"
    );
    assert_eq!(
        unique,
        cli_names().into_iter().collect::<BTreeSet<_>>(),
        "README.md's formats table and profile::FORMATS name different formats"
    );
}

#[test]
fn help_lists_every_format_with_its_help() {
    let long = output_words(&["--help"]);
    assert!(long.contains("- auto: Detect from the content"), "{long}");
    for f in FORMATS {
        if let Some(name) = f.cli {
            let line = format!("- {name}: {}", f.help);
            assert!(long.contains(&line), "--help misses {line:?}: {long}");
        }
    }
    assert!(long.contains("[default: auto]"), "{long}");
    // Short help lists the names alone, in the table's order.
    let values = format!("[possible values: auto, {}]", cli_names().join(", "));
    assert!(output_words(&["-h"]).contains(&values), "{values}");
}

#[test]
fn format_parses_every_name_of_the_table() {
    let parse = |args: &[&str]| {
        let mut all = vec!["flametui"];
        all.extend_from_slice(args);
        Args::try_parse_from(all).map(|a| a.format)
    };
    assert_eq!(parse(&[]).unwrap(), FormatChoice::Auto);
    assert_eq!(parse(&["--format", "auto"]).unwrap(), FormatChoice::Auto);
    for f in FORMATS {
        let Some(name) = f.cli else { continue };
        let choice = parse(&["--format", name]).unwrap();
        assert_eq!(choice.forced(), Some(f.format), "{name}");
        let upper = name.to_uppercase();
        assert!(parse(&["--format", &upper]).is_err(), "{upper}");
    }
    let err = parse(&["--format", "bogus"]).unwrap_err().to_string();
    let values = format!("[possible values: auto, {}]", cli_names().join(", "));
    assert!(err.contains(&values), "{err}");
}

#[test]
fn format_choice_forces_exactly_the_formats_with_a_name() {
    assert_eq!(FormatChoice::Auto.forced(), None);
    assert_eq!(FormatChoice::default(), FormatChoice::Auto);
    for f in FORMATS {
        let choice = FormatChoice::forcing(f.format);
        assert_eq!(choice.is_some(), f.cli.is_some(), "{:?}", f.format);
        if let Some(choice) = choice {
            assert_eq!(choice.forced(), Some(f.format), "{choice:?}");
        }
    }
}

#[test]
fn every_format_is_displayed_by_its_row() {
    let mut displays = BTreeSet::new();
    for (i, f) in FORMATS.iter().enumerate() {
        assert_eq!(f.format.info(), f, "row {i}");
        assert_eq!(f.format.to_string(), f.display);
        assert!(displays.insert(f.display), "{} twice", f.display);
        assert!(
            !f.help.is_empty() && !f.help.ends_with('.'),
            "{:?}",
            f.format
        );
    }
    assert_eq!(
        cli_names().len(),
        cli_names().into_iter().collect::<BTreeSet<_>>().len()
    );
}
