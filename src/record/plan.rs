//! What `perf record` is asked for: the call-graph mode (and why), the events, where the
//! data goes, and how perf is made to hand its data over at least once a second.
//!
//! perf reads the kernel's sample buffers only when one is half full (or at the end), so
//! a pipe to a slow command stays silent for seconds. `perf record --control` adds a FIFO
//! to what perf waits on: any command written there wakes it, and it then writes out
//! everything buffered. flametui writes `ping` to it [`PINGS_PER_SECOND`] times a second
//! (perf 5.10 and later; older ones get `--no-buffering`, a wake-up per sample).

use std::ffi::{OsStr, OsString};
use std::path::Path;

use super::args::{CallGraphArg, RecordArgs, TopArgs};
use super::frames::{self, FramePointers};

/// Wake-ups of perf per second: a round of samples reaches the viewer within two.
pub const PINGS_PER_SECOND: u32 = 4;

/// How the call stacks are recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallGraph {
    /// Frame pointers.
    Fp,
    /// Stack copies unwound with DWARF CFI.
    Dwarf,
    /// Last branch records.
    Lbr,
}

impl CallGraph {
    /// perf's name for it.
    pub fn perf_name(self) -> &'static str {
        match self {
            CallGraph::Fp => "fp",
            CallGraph::Dwarf => "dwarf",
            CallGraph::Lbr => "lbr",
        }
    }
}

/// The call-graph mode chosen, and why (for the status line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The mode.
    pub graph: CallGraph,
    /// Why, in a few words.
    pub why: String,
}

/// What is profiled.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A command started by perf.
    Command(&'a [OsString]),
    /// Running processes.
    Pids(&'a [u32]),
    /// Every CPU.
    System,
}

/// Chooses the call-graph mode: the one asked for, else for `auto` frame pointers when
/// the main binary keeps them (or for a whole system, where DWARF's 8 KB stack copy per
/// sample on every CPU costs too much), else DWARF. `fp_check` tells about a binary.
pub fn choose(
    asked: CallGraphArg,
    binary: Option<&Path>,
    system: bool,
    fp_check: impl Fn(&Path) -> Option<FramePointers>,
) -> Choice {
    let fixed = |graph: CallGraph| Choice {
        graph,
        why: "asked for".to_owned(),
    };
    match asked {
        CallGraphArg::Fp => return fixed(CallGraph::Fp),
        CallGraphArg::Dwarf => return fixed(CallGraph::Dwarf),
        CallGraphArg::Lbr => return fixed(CallGraph::Lbr),
        CallGraphArg::Auto => {}
    }
    if system {
        return Choice {
            graph: CallGraph::Fp,
            why: "system-wide: DWARF would copy 8 KB of stack per sample".to_owned(),
        };
    }
    let Some(binary) = binary else {
        return Choice {
            graph: CallGraph::Fp,
            why: "the program could not be found to check".to_owned(),
        };
    };
    let name = binary.file_name().map_or_else(
        || binary.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match fp_check(binary) {
        Some(fp) if fp.kept() => Choice {
            graph: CallGraph::Fp,
            why: format!(
                "{name} keeps frame pointers ({} of {} functions)",
                fp.keeping, fp.checked
            ),
        },
        Some(fp) => Choice {
            graph: CallGraph::Dwarf,
            why: format!(
                "{name} omits frame pointers ({} of {} functions keep them)",
                fp.keeping, fp.checked
            ),
        },
        None => Choice {
            graph: CallGraph::Dwarf,
            why: format!("{name} has no symbols to check for frame pointers"),
        },
    }
}

/// Where perf writes.
#[derive(Debug, Clone, Copy)]
pub enum Sink<'a> {
    /// Standard output, in pipe format, read live.
    Pipe,
    /// A file, read once perf is done.
    File(&'a Path),
}

/// How perf is woken up.
#[derive(Debug, Clone, Copy)]
pub enum Wake<'a> {
    /// Through this control FIFO.
    Control(&'a Path),
    /// A wake-up per sample (perf before 5.10).
    NoBuffering,
    /// Not needed (a file read at the end).
    None,
}

/// Everything that shapes the perf command line.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// What is profiled.
    pub target: Target<'a>,
    /// Samples per second.
    pub freq: u32,
    /// Call stacks.
    pub graph: CallGraph,
    /// Scheduler switches too (off-CPU time).
    pub off_cpu: bool,
    /// Where the data goes.
    pub sink: Sink<'a>,
    /// How perf is woken.
    pub wake: Wake<'a>,
    /// The user's own perf options (`--perf`).
    pub extra: &'a [String],
}

impl<'a> Plan<'a> {
    /// The plan of `flametui record`.
    pub fn record(a: &'a RecordArgs, graph: CallGraph, sink: Sink<'a>, wake: Wake<'a>) -> Self {
        let target = if !a.pids.is_empty() {
            Target::Pids(&a.pids)
        } else if a.command.is_empty() {
            Target::System
        } else {
            Target::Command(&a.command)
        };
        Self {
            target,
            freq: a.freq,
            graph,
            off_cpu: a.off_cpu,
            sink,
            wake,
            extra: &a.perf,
        }
    }

    /// The plan of `flametui top`: the whole system, or its processes.
    pub fn top(a: &'a TopArgs, graph: CallGraph, wake: Wake<'a>) -> Self {
        Self {
            target: if a.pids.is_empty() {
                Target::System
            } else {
                Target::Pids(&a.pids)
            },
            freq: a.freq,
            graph,
            off_cpu: false,
            sink: Sink::Pipe,
            wake,
            extra: &a.perf,
        }
    }

    /// The arguments of `perf` (starting with `record`).
    pub fn perf_args(&self, all_cpus: bool) -> Vec<OsString> {
        let mut v: Vec<OsString> = vec!["record".into()];
        let mut push = |s: &str| v.push(OsString::from(s));
        push(&format!("--call-graph={}", self.graph.perf_name()));
        if self.off_cpu {
            // A frequency for cpu-clock only: `-F` would sample the tracepoint too. Named
            // back to `cpu-clock`, whose periods are ns, as off-CPU time is.
            push("-e");
            push(&format!("cpu-clock/freq={},name=cpu-clock/", self.freq));
            push("-e");
            push("sched:sched_switch");
            push("--switch-events");
        } else {
            push("-F");
            push(&self.freq.to_string());
        }
        match self.target {
            Target::System => push("-a"),
            Target::Pids(pids) => {
                push("-p");
                let ids: Vec<String> = pids.iter().map(u32::to_string).collect();
                push(&ids.join(","));
            }
            Target::Command(_) if all_cpus => push("-a"),
            Target::Command(_) => {}
        }
        push("-o");
        match self.sink {
            Sink::Pipe => push("-"),
            Sink::File(p) => v.push(p.as_os_str().to_owned()),
        }
        match self.wake {
            Wake::Control(fifo) => {
                let mut arg = OsString::from("--control=fifo:");
                arg.push(fifo.as_os_str());
                v.push(arg);
            }
            Wake::NoBuffering => v.push("--no-buffering".into()),
            Wake::None => {}
        }
        for e in self.extra {
            v.extend(e.split_whitespace().map(OsString::from));
        }
        if let Target::Command(cmd) = self.target {
            v.push("--".into());
            v.extend(cmd.iter().cloned());
        }
        v
    }
}

/// Whether this perf has `--control` (5.10 and later), from `perf --version`'s output
/// (`perf version 6.1.187`); an unreadable version is taken as new.
pub fn has_control(version: &str) -> bool {
    let Some(v) = version.split_whitespace().nth(2) else {
        return true;
    };
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (5, 10) || major == 0
}

/// The program of a command, as a path.
pub fn program(command: &[OsString]) -> Option<&Path> {
    command.first().map(|p| Path::new(OsStr::new(p)))
}

/// The binary of `target` whose frame pointers decide `auto`: the command's (or its
/// script's interpreter), or the first process's.
pub fn main_binary(target: Target<'_>) -> Option<std::path::PathBuf> {
    match target {
        Target::Command(cmd) => {
            frames::binary_of(program(cmd)?, std::env::var_os("PATH").as_deref())
        }
        Target::Pids(pids) => std::fs::read_link(format!("/proc/{}/exe", pids.first()?)).ok(),
        Target::System => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(cmd: &[&str]) -> RecordArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            a: RecordArgs,
        }
        let mut v = vec!["t"];
        v.extend(cmd);
        T::parse_from(v).a
    }

    fn strings(v: &[OsString]) -> Vec<String> {
        v.iter().map(|s| s.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn a_command_streams_through_the_control_fifo() {
        let a = args(&["--", "./app", "-x"]);
        let fifo = Path::new("/t/ctl");
        let plan = Plan::record(&a, CallGraph::Dwarf, Sink::Pipe, Wake::Control(fifo));
        assert_eq!(
            strings(&plan.perf_args(a.all_cpus)),
            [
                "record",
                "--call-graph=dwarf",
                "-F",
                "997",
                "-o",
                "-",
                "--control=fifo:/t/ctl",
                "--",
                "./app",
                "-x"
            ]
        );
    }

    #[test]
    fn off_cpu_samples_the_switches_one_by_one() {
        let a = args(&[
            "--off-cpu",
            "-F",
            "499",
            "-p",
            "7,8",
            "--perf=-m 64 --no-inherit",
        ]);
        let plan = Plan::record(
            &a,
            CallGraph::Fp,
            Sink::File(Path::new("o.data")),
            Wake::None,
        );
        let got = strings(&plan.perf_args(a.all_cpus)).join(" ");
        assert_eq!(
            got,
            "record --call-graph=fp -e cpu-clock/freq=499,name=cpu-clock/ -e sched:sched_switch \
             --switch-events -p 7,8 -o o.data -m 64 --no-inherit"
        );
    }

    #[test]
    fn system_wide_without_a_command() {
        let a = args(&["-a"]);
        let plan = Plan::record(&a, CallGraph::Fp, Sink::Pipe, Wake::NoBuffering);
        let got = strings(&plan.perf_args(a.all_cpus)).join(" ");
        assert_eq!(got, "record --call-graph=fp -F 997 -a -o - --no-buffering");
        let a = args(&["-a", "--", "sleep", "1"]);
        let plan = Plan::record(&a, CallGraph::Fp, Sink::Pipe, Wake::None);
        assert!(
            strings(&plan.perf_args(a.all_cpus))
                .join(" ")
                .contains(" -a -o - -- sleep 1")
        );
    }

    #[test]
    fn auto_follows_the_binary() {
        let fp = |keeping| {
            move |_: &Path| {
                Some(FramePointers {
                    checked: 10,
                    keeping,
                })
            }
        };
        let bin = Path::new("/x/app");
        let c = choose(CallGraphArg::Auto, Some(bin), false, fp(9));
        assert_eq!(c.graph, CallGraph::Fp);
        assert_eq!(c.why, "app keeps frame pointers (9 of 10 functions)");
        let c = choose(CallGraphArg::Auto, Some(bin), false, fp(1));
        assert_eq!(c.graph, CallGraph::Dwarf);
        assert_eq!(
            c.why,
            "app omits frame pointers (1 of 10 functions keep them)"
        );
        let c = choose(CallGraphArg::Auto, Some(bin), false, |_| None);
        assert_eq!(c.graph, CallGraph::Dwarf);
        let c = choose(CallGraphArg::Auto, None, true, fp(0));
        assert_eq!(c.graph, CallGraph::Fp, "system-wide");
        let c = choose(CallGraphArg::Lbr, Some(bin), false, fp(0));
        assert_eq!((c.graph, c.why.as_str()), (CallGraph::Lbr, "asked for"));
    }

    #[test]
    fn control_came_with_5_10() {
        assert!(has_control("perf version 6.1.187"));
        assert!(has_control("perf version 5.10.0"));
        assert!(!has_control("perf version 5.4.233"));
        assert!(!has_control("perf version 4.19.0-24-amd64"));
        assert!(has_control("perf version unknown"));
        assert!(has_control(""));
    }
}
