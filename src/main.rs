//! The `flametui` binary: parses arguments, calls the library, maps errors to exit codes.

mod profiles;
mod warnings;

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, Parser};
use flametui::app::TransformStack;
use flametui::cli::{self, Args, ExportArg, exit};
use flametui::export::{self, Named};
use flametui::input::{self, LoadOptions, Loaded};
use flametui::output::Replacement;
use flametui::profile::CallTree;
use flametui::profile::transform::Transform;
use flametui::report;
use flametui::terminal;
use flametui::text::sanitize;
use flametui::timeline;
use flametui::view::color::{self, ColorEnv};

use profiles::profile_paths;
use warnings::{warn_about, warn_no_libraries};

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(command) = &args.command {
        return ExitCode::from(flametui::record::run(command));
    }
    let result = run(&args);
    // The viewer was ended by a signal: 128 + its number, as shells expect.
    if let (Ok(_), Some(signal)) = (&result, terminal::ended_by_signal()) {
        return u8::try_from(128 + signal).map_or(ExitCode::from(exit::ERROR), ExitCode::from);
    }
    match result {
        Ok(Ending::Complete) => ExitCode::SUCCESS,
        Ok(Ending::Partial) => ExitCode::from(exit::PARTIAL),
        // A reader that stopped reading (`| head`) wanted no more: not an error.
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("flametui: {}", error_text(&e));
            ExitCode::from(if usage(&e) { exit::USAGE } else { exit::ERROR })
        }
    }
}

/// Whether every input was read to its end.
enum Ending {
    Complete,
    /// An input ended early: what was shown or written is partial.
    Partial,
}

impl Ending {
    fn from_partial(partial: bool) -> Self {
        if partial {
            Ending::Partial
        } else {
            Ending::Complete
        }
    }
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// A flag that the input cannot answer (`--time` on folded stacks): exit status 2.
fn usage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<flametui::Error>()
            .is_some_and(flametui::Error::is_usage)
    })
}

/// Writes all of `bytes` to standard output and flushes it.
fn print_bytes(bytes: &[u8]) -> io::Result<()> {
    let mut out = Named::new("<stdout>", io::stdout());
    out.write_all(bytes)?;
    out.flush()
}

/// The error and its causes, each said once (a cause is left out when the message above
/// already quotes it), sanitized line by line so that a multi-line message keeps its lines.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain().map(ToString::to_string) {
        if !text.contains(&cause) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause);
        }
    }
    text.lines()
        .map(|l| sanitize(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--annotate` of a time range or task set needs each sample's lines: a .cpuprofile's
/// are per node, not per sample, so none are a slice's.
///
/// # Errors
/// [`flametui::Error::SliceUsage`] for such an input sliced.
fn annotate_slices(args: &Args, rec: &Loaded, slicing: &timeline::SliceArgs) -> Result<()> {
    let samples = rec.samples();
    let per_node = !samples.lines().is_empty() && samples.line_stacks().is_none();
    if args.annotate.is_some() && per_node && !slicing.is_empty() {
        return Err(flametui::Error::SliceUsage(format!(
            "--annotate: the source lines of {} are per node, not per sample (a .cpuprofile's \
             positionTicks), so --time and the task filters cannot apply to them",
            rec.main().source
        ))
        .into());
    }
    Ok(())
}

fn run(args: &Args) -> Result<Ending> {
    if let Some(shell) = args.completions {
        // Generated into memory: clap_complete panics when it cannot write.
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Args::command(), "flametui", &mut script);
        print_bytes(&script)?;
        return Ok(Ending::Complete);
    }
    if args.man {
        let mut page = Vec::new();
        clap_mangen::Man::new(Args::command()).render(&mut page)?;
        print_bytes(&page)?;
        return Ok(Ending::Complete);
    }
    let paths = profile_paths(args)?;
    if let Some(out) = &args.output {
        flametui::output::refuse_input(out, &paths)?;
    }
    flametui::profile::set_worker_threads(args.threads);
    let mut opts = args.load_options();
    let transforms = args.transforms()?;
    let slicing = args.slice_args();
    // Text outputs of the whole recording need no sample records: memory stays flat
    // however long the recording.
    let viewer = wants_viewer(args);
    opts.perf.no_timeline = slicing.is_empty() && !viewer;
    // Source lines of a perf.data recording, for what shows them.
    opts.perf_data.lines = viewer || args.annotate.is_some();
    // Exports have names only, unless a transform reads the libraries or inlining first.
    opts.perf.names_only = args.export.is_some()
        && !transforms
            .iter()
            .any(|t| matches!(t, Transform::CollapseLibrary(_) | Transform::MergeInlined));
    if viewer {
        if !slicing.is_empty() && paths.len() != 1 {
            return Err(flametui::Error::SliceUsage(
                "--time, --compare-time, --comms, --pids and --tids take one profile in the viewer (compare two ranges of it with --compare-time)".to_owned(),
            )
            .into());
        }
        return explore(args, &paths, &opts, transforms, &slicing);
    }
    if (slicing.compare_time.is_some() || slicing.heatmap) && paths.len() != 1 {
        return Err(flametui::Error::SliceUsage(
            "--compare-time and --heatmap read one recording: give one profile".to_owned(),
        )
        .into());
    }
    // Opened first: an output that cannot be created is said before a long load.
    let mut out = Output::open(args.output.as_deref())?;
    let mut loaded = Vec::new();
    let mut heat_maps = Vec::new();
    let mut partial = false;
    let union = exports_as_read(args, &paths, &slicing, &transforms);
    let mut parts = Vec::new();
    for p in &paths {
        let (rec, rest) = load_input(p, &opts, union)?;
        parts = rest;
        if paths.len() == 2 {
            rec.side()?;
        }
        annotate_slices(args, &rec, &slicing)?;
        let l = &rec;
        partial |= warn_about(l.main());
        warn_no_libraries(args, l.main());
        if args.stats {
            let text = report::line_accounting(l.main());
            if args.export.is_some() || args.top.is_some() || args.print || slicing.heatmap {
                eprint!("{text}");
            } else {
                print_bytes(text.as_bytes())?;
            }
        }
        if slicing.heatmap {
            heat_maps.push(timeline::heat_map(&rec, &slicing)?.csv());
            continue;
        }
        let l = timeline::apply(rec, &slicing)?;
        // Demangled after the transforms, whose regexes match either spelling anyway.
        let l = l.transformed(&transforms).demangled(args.demangle);
        loaded.push(l.sorted(args.order.into()));
    }
    if slicing.heatmap {
        for csv in &heat_maps {
            out.write_all(csv.as_bytes())?;
        }
    } else {
        write_output(args, &loaded, &parts, &mut out)?;
    }
    out.finish()?;
    // The process ends now and its memory goes back whole: freeing every name and node
    // of the trees one by one first took 3% of an export's time.
    std::mem::forget(loaded);
    std::mem::forget(parts);
    Ok(Ending::from_partial(partial))
}

/// Where the output goes: standard output, or a file replaced only once complete
/// ([`Replacement`]). A signal while the file is written removes the temporary file and
/// ends the program (the file named is left as it was).
enum Output {
    Stdout(Named<io::BufWriter<io::StdoutLock<'static>>>),
    File(Named<Replacement>),
}

impl Output {
    fn open(path: Option<&Path>) -> Result<Self> {
        let Some(path) = path else {
            let out = io::BufWriter::with_capacity(256 << 10, io::stdout().lock());
            return Ok(Output::Stdout(Named::new("<stdout>", out)));
        };
        let target = sanitize(&path.display().to_string()).into_owned();
        // The signals are caught before the temporary file exists, and the catcher waits
        // for its name: a signal in between would end the program and leave the file.
        let temp = remove_on_signal();
        let mut name = temp
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let file = Replacement::create(path).with_context(|| format!("cannot create {target}"))?;
        *name = file.temp_path().map(Path::to_path_buf);
        drop(name);
        Ok(Output::File(Named::new(target, file)))
    }

    fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut out) => out.flush()?,
            Output::File(out) => {
                let (target, file) = out.into_parts();
                file.commit()
                    .with_context(|| format!("cannot write {target}"))?;
            }
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(o) => o.write(buf),
            Output::File(o) => o.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(o) => o.write_all(buf),
            Output::File(o) => o.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(o) => o.flush(),
            Output::File(o) => o.flush(),
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP, removes the file named in the slot returned (once it is
/// free: whoever creates the file holds it meanwhile) and exits with 128 + the signal.
fn remove_on_signal() -> std::sync::Arc<std::sync::Mutex<Option<std::path::PathBuf>>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let slot = std::sync::Arc::new(std::sync::Mutex::new(None::<std::path::PathBuf>));
    let temp = std::sync::Arc::clone(&slot);
    // Without it (no thread to be had) the signals keep their default actions.
    let _ =
        flametui::profile::threads::watch_signals(vec![SIGINT, SIGTERM, SIGHUP], move |signal| {
            let name = temp
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(path) = name.as_ref() {
                let _ = std::fs::remove_file(path);
            }
            std::process::exit(128 + signal);
        });
    slot
}

/// Whether the output is the folded export of one input as read (nothing between the
/// load and the export changes its tree): the export then takes the union of the parser
/// threads' trees itself, without merging them first.
fn exports_as_read(
    args: &Args,
    paths: &[String],
    slicing: &timeline::SliceArgs,
    transforms: &[Transform],
) -> bool {
    args.export == Some(ExportArg::Folded)
        && paths.len() == 1
        && slicing.is_empty()
        && transforms.is_empty()
        && !args.demangle
}

/// Loads one input; with `union` ([`exports_as_read`]), the trees of its parser threads
/// may be left apart, beside it.
fn load_input(p: &str, opts: &LoadOptions, union: bool) -> Result<(Loaded, Vec<CallTree>)> {
    Ok(if union {
        input::load_path_parts(p, opts)?
    } else {
        (input::load_path(p, opts)?, Vec::new())
    })
}

/// Writes what the arguments ask for: an export, the delta table of two profiles, the
/// top table or the report. `parts` are trees whose stacks belong to the one profile
/// loaded ([`input::load_path_parts`]).
fn write_output(
    args: &Args,
    loaded: &[Loaded],
    parts: &[CallTree],
    out: &mut impl Write,
) -> Result<()> {
    match args.export {
        Some(ExportArg::Folded) => {
            // Names are data in a file or a pipe; a terminal would obey their controls.
            let to = if args.output.is_none() && io::stdout().is_terminal() {
                export::Destination::Terminal
            } else {
                export::Destination::Data
            };
            let (before, after) = match loaded {
                [Loaded::Single(p)] => {
                    return Ok(export::write_folded_parts(out, &p.tree, parts, to)?);
                }
                [Loaded::Diff { before, after }] => (&before.tree, &after.tree),
                [a, b] => (&a.main().tree, &b.main().tree),
                _ => bail!("--export folded takes one or two profiles"),
            };
            export::write_diff_folded(out, before, after, args.normalize, to)?;
        }
        Some(ExportArg::Svg) => {
            // Two profiles (or a differential file): AFTER's shape, coloured by change.
            let pair = match loaded {
                [Loaded::Diff { before, after }] => Some((before, after)),
                [a, b] => Some((a.main(), b.main())),
                _ => None,
            };
            if let Some((before, after)) = pair {
                let title = format!("{} → {}", before.source, after.source);
                let unit = after.stats.unit.to_string();
                export::diff_svg(&before.tree, &after.tree, &title, &unit, out)?;
            } else {
                let p = loaded.first().context("no profile")?.main();
                export::svg(p, &p.source, out)?;
            }
        }
        None if args.stats && args.top.is_none() && !args.print => {}
        None => {
            // Two profiles (or a differential file): the functions that changed most.
            let pair = match loaded {
                [Loaded::Diff { before, after }] => Some((before, after)),
                [a, b] => Some((a.main(), b.main())),
                _ => None,
            };
            let p = loaded.last().context("no profile")?.main();
            let figures = if args.exact {
                report::Figures::Exact
            } else {
                report::Figures::Human
            };
            let text = match (pair, args.top) {
                _ if args.annotate.is_some() => {
                    let pattern = args.annotate.as_deref().unwrap_or_default();
                    let re = regex::Regex::new(pattern)
                        .with_context(|| format!("--annotate: `{pattern}` is no regex"))?;
                    let mut sources =
                        flametui::source_files::SourceCache::new(args.source_search());
                    report::annotate(p, &re, &mut sources, (figures, args.demangle))
                }
                (Some((before, after)), top) => {
                    report::delta_table(before, after, top.unwrap_or(20), figures)
                }
                (None, Some(n)) if !args.print && args.top_by == cli::TopBy::Library => {
                    report::top_libraries(p, n, figures)
                }
                (None, Some(n)) if !args.print => report::top_table(p, n, figures),
                (None, top) => report::report(p, top.unwrap_or(20), args.min_percent, figures),
            };
            out.write_all(text.as_bytes())?;
        }
    }
    Ok(())
}

/// The viewer starts on a terminal unless plain output was asked for; else the report. A
/// terminal that cannot run it (TERM=dumb, or no controlling terminal to read keys from,
/// as under `setsid`) gets the report too, with a word on stderr.
fn wants_viewer(args: &Args) -> bool {
    let asked = args.export.is_none()
        && args.heatmap.is_none()
        && args.output.is_none()
        && args.top.is_none()
        && args.annotate.is_none()
        && !args.print
        && !args.stats
        && io::stdout().is_terminal();
    if !asked {
        return false;
    }
    match terminal::unusable_reason(std::env::var_os("TERM").as_deref()) {
        Some(why) => {
            eprintln!("flametui: {why}: printing the text report instead");
            false
        }
        None => true,
    }
}

/// Explores the profile full-screen, or compares two (they load in the background, showing
/// progress); warnings about the inputs are printed once the terminal is restored.
fn explore(
    args: &Args,
    paths: &[String],
    opts: &LoadOptions,
    transforms: Vec<Transform>,
    slicing: &flametui::timeline::SliceArgs,
) -> Result<Ending> {
    let colors = color::detect(args.color.into(), &ColorEnv::from_env());
    let app = if let [before, after] = paths {
        terminal::compare(
            before,
            after,
            opts,
            &transforms,
            (colors, args.name_style()),
        )?
    } else {
        let path = paths.last().context("no profile")?;
        let view = TransformStack::new(transforms, args.order.into());
        let look = (colors, args.name_style());
        terminal::explore_sliced(path, opts, view, slicing, look, args.source_search())?
    };
    if let Some(failure) = app.failure {
        bail!(failure);
    }
    let partial = if let Some(cmp) = app.comparison() {
        // Both are told about, whichever ended early.
        warn_about(&cmp.before.profile) | warn_about(&cmp.after.profile)
    } else {
        app.profile().is_some_and(warn_about)
    };
    Ok(Ending::from_partial(partial))
}
