//! End-to-end sessions of the real binary in a detached tmux pane: send keys, poll
//! `capture-pane` until the screen shows what is expected (no fixed sleeps), and check that
//! the terminal is given back on exit. Skipped, with a message, when tmux is missing.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::support::testdata;

const TIMEOUT: Duration = Duration::from_secs(20);
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_flametui");

/// A tmux server of our own (its own socket), killed on drop.
pub(crate) struct Tmux {
    socket: String,
}

pub(crate) fn tmux_available() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: tmux is not installed; end-to-end tests need it (.ci/run installs it)");
    }
    ok
}

impl Tmux {
    /// Starts `command` under `sh` in an 80×24 pane; it reports its exit status and waits.
    pub(crate) fn start(name: &str, command: &str) -> Self {
        Self::start_sized(name, command, (80, 24))
    }

    /// As [`Tmux::start`], in a pane of `width`×`height`.
    pub(crate) fn start_sized(name: &str, command: &str, (width, height): (u16, u16)) -> Self {
        let t = Tmux {
            socket: format!("flametui-e2e-{}-{name}", std::process::id()),
        };
        let script = format!("{command}; echo EXITED:$?; sleep 60");
        let (width, height) = (width.to_string(), height.to_string());
        let out = t.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &width,
            "-y",
            &height,
            "-s",
            "e2e",
            "sh",
            "-c",
            &script,
        ]);
        assert!(
            out.status.success(),
            "tmux: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("run tmux")
    }

    /// Sends keys (tmux key names: `Enter`, `Escape`, or literal text).
    pub(crate) fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// The pane with its styles, as SGR escapes (`-e`).
    pub(crate) fn capture_styled(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-e", "-t", "e2e"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the pane until `want` holds; fails with the last screen after the timeout.
    pub(crate) fn wait_for(&self, what: &str, want: impl Fn(&str) -> bool) -> String {
        self.wait_within(TIMEOUT, what, want)
    }

    /// As [`Tmux::wait_for`], with a timeout of its own.
    pub(crate) fn wait_within(
        &self,
        timeout: Duration,
        what: &str,
        want: impl Fn(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if want(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out ({timeout:?}) waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Pastes `text` into the pane as a terminal does with bracketed paste on (tmux wraps
    /// it in `ESC [200~` … `ESC [201~` when the program asked for that, and turns its line
    /// feeds into carriage returns, as a terminal's paste does).
    pub(crate) fn paste(&self, text: &str) {
        let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("{}.paste", self.socket));
        std::fs::write(&file, text).expect("write the paste");
        let path = file.to_str().expect("a UTF-8 path");
        assert!(self.run(&["load-buffer", "-b", "p", path]).status.success());
        let _ = std::fs::remove_file(&file);
        let pasted = self.run(&["paste-buffer", "-p", "-d", "-b", "p", "-t", "e2e"]);
        assert!(pasted.status.success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

pub(crate) fn quote(path: &std::path::Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn open_search_zoom_quit() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-gzip-fp.txt.gz");
    let t = Tmux::start("open", &format!("{BIN} {}", quote(&file)));
    t.wait_for("the header", |s| {
        s.contains("perf-gzip-fp.txt.gz · perf script") && s.contains("Enter zoom")
    });
    t.send(&["/", "chacha"]);
    t.wait_for("the search result", |s| {
        s.contains("Matched: 6.01%") && s.contains("/chacha")
    });
    t.send(&["Enter"]);
    t.wait_for("the prompt to close", |s| s.contains("? help"));
    t.send(&["n"]);
    t.wait_for("the first match", |s| s.contains("selection is #1"));
    t.send(&["Enter"]);
    t.wait_for("the zoom breadcrumbs", |s| {
        s.contains("› chacha_block_generic") && s.contains("100.00% of zoom")
    });
    t.send(&["BSpace"]);
    t.wait_for("zoom back", |s| {
        s.contains("│ all ") && !s.contains("of zoom")
    });
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:0"));
    assert!(
        !screen.contains("icicle"),
        "alternate screen left:\n{screen}"
    );
}

/// A paste of 100 KB into the search prompt is one edit: it is cut at 4 KiB with a word
/// on the status line, and the keys typed after it work at once. (Each pasted character
/// was a key that searched again and redrew: 19 s for 10 KB, minutes for 1 MB.)
#[test]
fn a_large_paste_into_the_search_leaves_the_keyboard_free() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-gzip-fp.txt.gz");
    let t = Tmux::start("paste", &format!("{BIN} {}", quote(&file)));
    t.wait_for("the header", |s| s.contains("Enter zoom"));
    t.send(&["/"]);
    t.wait_for("the prompt", |s| s.contains("Type a regex"));
    let text = "chacha_block_generic\n".repeat(5_000);
    assert!(text.len() > 100_000);
    t.paste(&text);
    let soon = Duration::from_secs(10);
    t.wait_within(soon, "the paste, cut", |s| {
        s.contains("Search text is limited to 4 KiB: the paste was cut")
            && s.contains("/chacha_block_generic chacha_block")
    });
    t.send(&["Escape"]);
    t.wait_within(soon, "Esc after the paste", |s| {
        s.contains("? help") && !s.contains("limited to 4 KiB")
    });
    t.send(&["q"]);
    t.wait_within(soon, "q after the paste", |s| s.contains("EXITED:0"));
}

#[test]
fn reads_the_profile_from_a_pipe() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-gzip-fp.txt.gz");
    let t = Tmux::start("pipe", &format!("cat {} | {BIN} -", quote(&file)));
    t.wait_for("the header", |s| s.contains("<stdin> · perf script"));
    t.send(&["j"]);
    t.wait_for("keys from the tty", |s| s.contains("89.06% of total"));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

#[test]
fn sigterm_restores_the_terminal() {
    if !tmux_available() {
        return;
    }
    let file = testdata("folded-small.txt");
    let pid_file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-e2e-{}.pid", std::process::id()));
    let command = format!(
        "{BIN} {} & echo $! > {}; wait",
        quote(&file),
        quote(&pid_file)
    );
    let t = Tmux::start("term", &command);
    t.wait_for("the header", |s| s.contains("folded-small.txt"));
    let pid = std::fs::read_to_string(&pid_file).expect("pid file");
    let _ = std::fs::remove_file(&pid_file);
    let killed = Command::new("kill").args(["-TERM", pid.trim()]).status();
    assert!(killed.is_ok_and(|s| s.success()));
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(
        !screen.contains("icicle"),
        "alternate screen left:\n{screen}"
    );
}

#[test]
fn without_a_terminal_prints_the_report() {
    let file = testdata("folded-small.txt");
    let out = Command::new(BIN).arg(&file).output().expect("run flametui");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Call tree"), "{text}");
}

/// After each way out — `q`, Ctrl-C, SIGTERM, SIGHUP, a panic — the alternate screen is
/// gone and the tty is back in cooked mode (`stty` shows `icanon` and `echo`, not `-icanon`).
#[test]
fn every_way_out_restores_the_terminal() {
    if !tmux_available() {
        return;
    }
    let file = testdata("folded-small.txt");
    let pid_file = |name: &str| {
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("flametui-e2e-{}-{name}.pid", std::process::id()))
    };
    // (name, environment, signal sent, exit status: 128 + the signal, as shells expect)
    let cases: [(&str, &str, Option<&str>, u8); 8] = [
        ("q", "", None, 0),
        ("ctrlc", "", None, 0),
        ("term", "", Some("-TERM"), 143),
        ("hup", "", Some("-HUP"), 129),
        ("int", "", Some("-INT"), 130),
        ("usr1", "", Some("-USR1"), 138),
        ("alrm", "", Some("-ALRM"), 142),
        (
            "panic",
            "RUST_BACKTRACE=0 FLAMETUI_DEBUG_PANIC=1 ",
            None,
            101,
        ),
    ];
    for (name, env, signal, status) in cases {
        let pid = pid_file(name);
        let command = format!(
            "{env}{BIN} {} & echo $! > {}; wait $!; echo STATUS:$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '",
            quote(&file),
            quote(&pid)
        );
        let t = Tmux::start(name, &command);
        if name != "panic" {
            t.wait_for("the viewer", |s| {
                s.contains("folded-small.txt") && s.contains("? help")
            });
        }
        match (name, signal) {
            ("q", _) => t.send(&["q"]),
            ("ctrlc", _) => t.send(&["C-c"]),
            (_, Some(sig)) => {
                let pid_text = std::fs::read_to_string(&pid).expect("pid file");
                let killed = Command::new("kill").args([sig, pid_text.trim()]).status();
                assert!(killed.is_ok_and(|s| s.success()), "{name}");
            }
            _ => {}
        }
        let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
        let _ = std::fs::remove_file(&pid);
        assert!(
            !screen.contains("? help"),
            "{name}: alternate screen left:\n{screen}"
        );
        assert!(
            screen.contains("icanon echo"),
            "{name}: tty left in raw mode:\n{screen}"
        );
        assert!(
            screen.contains(&format!("STATUS:{status}")),
            "{name}: exit status is not {status}:\n{screen}"
        );
        assert!(
            !screen.contains("\x1b[?1000h") && !screen.contains("[<0;"),
            "{name}: mouse reporting left on:\n{screen}"
        );
        if name == "panic" {
            assert!(
                screen.contains("panicking on purpose"),
                "{name}: panic message lost:\n{screen}"
            );
        }
    }
}

/// `perf script | flametui -` with a producer that pauses: the graph of what came so far
/// is on screen during the pause (marked live), and the whole profile replaces it after.
#[test]
fn a_streaming_pipe_shows_the_graph_before_the_input_ends() {
    if !tmux_available() {
        return;
    }
    let file = quote(&testdata("perf-dd-fsync.txt.gz"));
    let command =
        format!("(zcat {file} | head -c 300000; sleep 4; zcat {file} | tail -c +300001) | {BIN} -");
    let t = Tmux::start("live", &command);
    let during = t.wait_for("a live graph during the pause", |s| s.contains("⟳ live"));
    assert!(
        during.contains("<stdin> · perf script") && during.contains("dd"),
        "{during}"
    );
    let after = t.wait_for("the whole profile", |s| {
        s.contains("1.26 s CPU in ") && !s.contains("⟳ live")
    });
    assert!(after.contains("icicle"), "{after}");
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

/// The `stty` settings that raw mode changes, as a line of words (`icanon echo` when cooked).
const STTY: &str =
    "stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo";

/// Ctrl-Z gives the terminal back (cooked, main screen) and `fg` redraws the graph, with
/// keys working again; SIGTSTP from outside does the same. Before, the alternate screen
/// and mouse reporting stayed on, and nothing was redrawn after `fg`.
#[test]
fn ctrl_z_suspends_and_fg_redraws() {
    if !tmux_available() {
        return;
    }
    let t = Tmux::start("suspend", "bash --norc --noprofile");
    t.send(&[&format!("PS1='$ '; {STTY}"), "Enter"]);
    t.wait_for("the shell", |s| s.contains("icanon echo"));
    t.send(&[
        &format!("{BIN} {}", quote(&testdata("folded-small.txt"))),
        "Enter",
    ]);
    t.wait_for("the viewer", |s| s.contains("? help"));
    t.send(&["C-z"]);
    t.wait_for("the job stopped", |s| {
        s.contains("Stopped") && !s.contains("? help")
    });
    // The settings come out on a line of their own, tagged so that neither the command
    // typed nor an earlier output (still on screen under load) can pass for them.
    t.send(&["clear; printf 'tty%s: ' 2; ", STTY, "Enter"]);
    let screen = t.wait_for("stty", |s| s.lines().any(|l| l.starts_with("tty2: ")));
    let line = screen
        .lines()
        .find(|l| l.starts_with("tty2: "))
        .unwrap_or_default();
    assert_eq!(
        line.trim_end(),
        "tty2: icanon echo",
        "a cooked tty:\n{screen}"
    );
    t.send(&["fg", "Enter"]);
    t.wait_for("the graph redrawn", |s| {
        s.contains("? help") && s.contains("folded-small.txt")
    });
    // Keys work again: move down and open the help.
    t.send(&["j"]);
    t.wait_for("a key after fg", |s| {
        s.contains("gzip") && s.contains("of total")
    });
    t.send(&["q"]);
    // The command goes to the shell only once the viewer is gone: typed at once, the
    // viewer may read it with the `q` and drop it (it did, once, under load).
    t.wait_for("the viewer gone", |s| !s.contains("? help"));
    t.send(&["clear; printf 'tty%s: ' 3; ", STTY, "Enter"]);
    let end = t.wait_for("the shell again", |s| {
        s.lines().any(|l| l.trim_end() == "tty3: icanon echo")
    });
    assert!(!end.contains("? help"), "{end}");
}

/// A viewer that cannot run prints the report instead, with a word on stderr: TERM=dumb,
/// and no controlling terminal (`setsid`, stdin a pipe) — which failed with "No such device
/// or address (os error 6)". `flametui -` with stdin a terminal is refused.
#[test]
fn unusable_terminals_get_the_report() {
    if !tmux_available() {
        return;
    }
    let file = quote(&testdata("folded-small.txt"));
    let err = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-e2e-{}-dumb.err", std::process::id()));
    let errq = quote(&err);
    for (name, command, why) in [
        (
            "dumb",
            format!("TERM=dumb {BIN} {file} 2>{errq}"),
            "TERM is dumb",
        ),
        (
            "setsid",
            format!("cat {file} | setsid -w {BIN} - 2>{errq}"),
            "no controlling terminal",
        ),
    ] {
        let t = Tmux::start(name, &command);
        let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
        assert!(screen.contains("EXITED:0"), "{name}: {screen}");
        assert!(
            screen.contains("chacha_permute"),
            "{name}: no report:\n{screen}"
        );
        let text = std::fs::read_to_string(&err).unwrap_or_default();
        assert!(
            text.contains(why) && text.contains("text report"),
            "{name}: {text}"
        );
    }
    let _ = std::fs::remove_file(&err);
    let t = Tmux::start("dash", &format!("{BIN} -"));
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    assert!(screen.contains("EXITED:1"), "{screen}");
    assert!(
        screen.contains("standard input, which is a terminal"),
        "{screen}"
    );
}

/// The viewer exits 3 after showing an input that ended early (a truncated gzip).
#[test]
fn the_viewer_exits_3_after_an_input_that_ended_early() {
    use std::io::Write;
    if !tmux_available() {
        return;
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..200 {
        writeln!(gz, "main;f{i} 1").expect("gzip");
    }
    let mut bytes = gz.finish().expect("gzip");
    bytes.truncate(bytes.len() - 10);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-e2e-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (cut, err) = (dir.join("cut.folded.gz"), dir.join("stderr"));
    std::fs::write(&cut, bytes).expect("write");
    let t = Tmux::start("cut", &format!("{BIN} {} 2>{}", quote(&cut), quote(&err)));
    t.wait_for("the viewer", |s| s.contains("? help"));
    t.send(&["q"]);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    let message = std::fs::read_to_string(&err).expect("stderr");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(screen.contains("EXITED:3"), "{screen}\n{message}");
    assert!(message.contains("the input ended early"), "{message}");
}
/// The viewer's compare path refuses a differential file as one side, as the text modes
/// do (`Loaded::into_side`), and says so once the terminal is given back.
#[test]
fn the_viewer_refuses_a_differential_file_as_one_side() {
    if !tmux_available() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-e2e-side-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let diff = dir.join("side.diff.folded");
    std::fs::write(&diff, "x;y 3 5\n").expect("write");
    let plain = testdata("folded-small.txt");
    let err = dir.join("stderr");
    // Standard output stays the pane, so the viewer starts; stderr goes to a file.
    let command = format!("{BIN} {} {} 2>{}", quote(&plain), quote(&diff), quote(&err));
    let t = Tmux::start("side", &command);
    let screen = t.wait_for("exit", |s| s.contains("EXITED:"));
    let message = std::fs::read_to_string(&err).expect("stderr");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(screen.contains("EXITED:1"), "{screen}\n{message}");
    assert!(
        message.contains("side.diff.folded: a differential folded file"),
        "{message}"
    );
    assert!(
        !screen.contains("? help"),
        "alternate screen left:\n{screen}"
    );
}

#[test]
fn a_range_picked_on_the_heat_map_is_the_graph_and_its_total() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-timeline.txt.gz");
    let t = Tmux::start("heat", &format!("{BIN} {}", quote(&file)));
    t.wait_for("the graph", |s| {
        s.contains("perf-timeline.txt.gz · perf script")
    });
    t.send(&["T"]);
    t.wait_for("the heat map", |s| s.contains("a cell is 40 ms of 1 s"));
    // Second 1, rows 12–17 of 40 ms: [1.48, 1.72), the cron spike and its neighbours.
    t.send(&["l"]);
    for _ in 0..12 {
        t.send(&["j"]);
    }
    t.send(&["Space"]);
    for _ in 0..5 {
        t.send(&["j"]);
    }
    t.send(&["Space"]);
    t.wait_for("the range", |s| s.contains("range 1.48–1.72 s"));
    t.send(&["Enter"]);
    // 6 cells × (10 server + 4 worker samples) + 200 cron samples.
    t.wait_for("the graph of the range", |s| {
        s.contains("1.48–1.72 s") && s.contains("in 284 samples") && s.contains("cron")
    });
    t.send(&["u"]);
    t.wait_for("the whole recording", |s| {
        s.contains("in 1,850 samples") && !s.contains("1.48–1.72 s")
    });
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

#[test]
fn the_viewer_starts_on_the_time_and_task_flags_and_u_undoes_them() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-timeline.txt.gz");
    let t = Tmux::start(
        "sliced",
        &format!("{BIN} --time 1.5,1.7 --comms cron,server {}", quote(&file)),
    );
    // cron: 200 samples of 1 ms; server: 50 of 4 ms.
    t.wait_for("the slice", |s| {
        s.contains("1.50–1.70 s › 2 tasks") && s.contains("400 ms in 250 samples")
    });
    // The flags are one slice: one undo gives the whole recording back.
    t.send(&["u"]);
    t.wait_for("the slice undone", |s| {
        !s.contains("1.50–1.70 s") && s.contains("in 1,850 samples")
    });
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

#[test]
fn a_task_picked_in_the_task_list_is_the_graph_and_its_total() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-system-wide.txt.gz");
    let t = Tmux::start("tasks", &format!("{BIN} {}", quote(&file)));
    t.wait_for("the graph", |s| {
        s.contains("perf-system-wide.txt.gz · perf script") && s.contains("in 3,001 samples")
    });
    t.send(&["w"]);
    t.wait_for("the task list", |s| {
        s.contains("80 threads in 69 processes") && s.contains("sysw-sort")
    });
    // The second row: sysw-sort, the heaviest thread of the heaviest process.
    t.send(&["j"]);
    t.wait_for("the thread selected", |s| {
        s.contains("sysw-sort · pid 17346 · tid 17349")
    });
    t.send(&["Enter"]);
    t.wait_for("the graph of the thread", |s| {
        s.contains("sysw-sort 17349") && s.contains("in 449 samples")
    });
    t.send(&["u"]);
    t.wait_for("every task again", |s| {
        s.contains("in 3,001 samples") && !s.contains("sysw-sort 17349")
    });
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

/// Runs the binary on `args` with `stdin` as its standard input; returns the exit status
/// and what it wrote to stderr.
fn run_with_stdin(args: &[&std::ffi::OsStr], stdin: &[u8]) -> (Option<i32>, String) {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run flametui");
    // flametui may stop reading as soon as it knows: a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_perf_data_recording_is_read_by_its_magic_from_a_file_gzip_or_a_pipe() {
    use std::ffi::OsStr;
    let gz = testdata("perf-true.data.gz");
    let top = |args: &[&OsStr], stdin: &[u8]| {
        let mut full = vec![OsStr::new("--top"), OsStr::new("3")];
        full.extend_from_slice(args);
        run_with_stdin(&full, stdin)
    };
    assert_eq!(top(&[gz.as_os_str()], b"").0, Some(0));
    // The recording itself, under a name that says nothing, and through standard input.
    let mut raw = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()),
        &mut raw,
    )
    .unwrap();
    assert!(raw.starts_with(b"PERFILE2"));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-perfdata-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let odd = dir.join("profile it's.txt");
    std::fs::write(&odd, &raw).unwrap();
    assert_eq!(top(&[odd.as_os_str()], b"").0, Some(0));
    assert_eq!(top(&[OsStr::new("-")], &raw).0, Some(0));
    // A pipe-mode header with nothing readable after it: a clear error, exit status 1.
    let mut pipe = b"PERFILE2".to_vec();
    pipe.extend_from_slice(&16u64.to_le_bytes());
    pipe.extend_from_slice(&[0; 48]);
    let (code, err) = run_with_stdin(&[OsStr::new("-")], &pipe);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("flametui: <stdin>: cannot read this perf.data recording: "),
        "{err}"
    );
    // A file cut short: the same kind of message, naming the file.
    let cut = dir.join("cut.data");
    std::fs::write(&cut, &raw[..raw.len() / 2]).unwrap();
    let (code, err) = run_with_stdin(&[cut.as_os_str()], b"");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("cut.data: cannot read this perf.data recording: "),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `a` on a frame opens its source lines on the hottest one, in reverse video; Esc goes
/// back to the graph.
#[test]
fn the_source_screen_opens_on_the_hottest_line() {
    if !tmux_available() {
        return;
    }
    let file = testdata("pprof-lines.pb.gz");
    let dir = testdata("");
    let command = format!("{BIN} --source-path {} {}", quote(&dir), quote(&file));
    let t = Tmux::start("source", &command);
    t.wait_for("the graph", |s| s.contains("pprof-lines.pb.gz · pprof"));
    t.send(&["Down", "Down", "Down"]);
    t.wait_for("main.work selected", |s| s.contains("1.93 s in 7 samples"));
    t.send(&["a"]);
    t.wait_for("the source lines", |s| {
        s.contains("Line  main.work") && s.contains("s += square(uint64(i)) % 7")
    });
    let styled = t.capture_styled();
    let hottest = styled
        .lines()
        .find(|l| l.contains("950 ms"))
        .expect("the line of 950 ms");
    // Reverse video (SGR 7) on the hottest line, and on no other line of the listing.
    let reversed = |l: &str| l.contains("\x1b[7m") || l.contains(";7m") || l.contains("[7;");
    assert!(reversed(hottest), "{hottest:?}");
    let others = styled
        .lines()
        .filter(|l| l.contains(" ms ") && !l.contains("950 ms"))
        .filter(|l| reversed(l))
        .count();
    assert_eq!(others, 0, "{styled}");
    t.send(&["Escape"]);
    t.wait_for("the graph again", |s| s.contains("Enter zoom"));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}

#[test]
fn heat_map_big_steps_and_a_typed_range_then_esc_goes_back_to_the_table() {
    if !tmux_available() {
        return;
    }
    let file = testdata("perf-timeline.txt.gz");
    let t = Tmux::start_sized("flow", &format!("{BIN} {}", quote(&file)), (200, 50));
    t.wait_for("the graph", |s| s.contains("in 1,850 samples"));
    t.send(&["T"]);
    t.wait_for("the heat map", |s| s.contains("cursor 0.00 s"));
    // Shift+→ is a second, J a tenth of one.
    t.send(&["S-Right", "J"]);
    t.wait_for("big steps", |s| s.contains("cursor 1.10 s"));
    t.send(&[":", "1.5,1.7", "Enter"]);
    t.wait_for("the typed range", |s| s.contains("range 1.50–1.70 s"));
    t.send(&["Enter"]);
    t.wait_for("the graph of the range", |s| s.contains("1.50–1.70 s"));
    // Callers from the function table: Esc is back on the table at the same row.
    // The status area names the selected row, above its totals.
    let row = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        let at = lines.iter().position(|l| l.starts_with("total "))?;
        Some(lines.get(at.checked_sub(1)?)?.trim().to_owned())
    };
    t.send(&["t"]);
    let mut before = row(&t.wait_for("the table", |s| {
        s.contains("Function (") && row(s).is_some()
    }));
    for _ in 0..2 {
        t.send(&["j"]);
        before = row(&t.wait_for("the next row", |s| row(s) != before));
    }
    t.send(&["s"]);
    t.wait_for("callers", |s| s.contains("Callers of"));
    t.send(&["Escape"]);
    t.wait_for("the table again", |s| {
        s.contains("Function (") && row(s) == before
    });
    t.send(&["Escape"]);
    t.wait_for("the graph", |s| !s.contains("Function ("));
    t.send(&["q"]);
    t.wait_for("exit", |s| s.contains("EXITED:0"));
}
