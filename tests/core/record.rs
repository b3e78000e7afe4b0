//! `flametui record` and `flametui top` without a terminal, as a script runs them: the real
//! binary records a small C program (built at test time) with the real perf, or meets a
//! fake perf on PATH that refuses as perf does when it is not allowed, missing, or
//! Ubuntu's wrapper without the kernel's build. Skipped, with a message, without gcc or a
//! perf that may record here (the fake-perf cases need neither).

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::busy::{busy_or_skip, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_flametui");
/// No run here takes more than a few seconds; past this, flametui hangs.
const PATIENCE: Duration = Duration::from_secs(30);

/// perf 6.1's words when `perf_event_paranoid` forbids what was asked (its stderr, exit
/// status 255), as `src/record/diagnose.rs` quotes them.
const PARANOID: &str = "Error:
Access to performance monitoring and observability operations is limited.
Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open
access to performance monitoring and observability operations for processes
without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.
More information can be found at 'Perf events and tool security' document:
https://www.kernel.org/doc/html/latest/admin-guide/perf-security.html
perf_event_paranoid setting is 2:
  -1: Allow use of (almost) all events by all users
      Ignore mlock limit after perf_event_mlock_kb without CAP_IPC_LOCK
>= 0: Disallow raw and ftrace function tracepoint access
>= 1: Disallow CPU event access
>= 2: Disallow kernel profiling
To make the adjusted perf_event_paranoid setting permanent preserve it
in /etc/sysctl.conf (e.g. kernel.perf_event_paranoid = <setting>)
";

/// flametui with `args` in `dir`, stdin empty, stdout and stderr piped (no terminal).
fn flametui(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Runs it to the end, failing (and killing it) past [`PATIENCE`].
fn finish(cmd: &mut Command) -> Output {
    wait_output(cmd.spawn().expect("start flametui"))
}

fn wait_output(mut child: Child) -> Output {
    // Both pipes are drained as the child runs, so it never blocks on a full one.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = child.stdout.take().map(|s| drain(Box::new(s)));
    let err = child.stderr.take().map(|s| drain(Box::new(s)));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flametui still ran after {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let join = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.map(|h| h.join().unwrap()).unwrap_or_default()
    };
    Output {
        status,
        stdout: join(out),
        stderr: join(err),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The folded stacks of a recording, as `flametui FILE --export folded` gives them.
fn folded(file: &Path) -> Vec<(String, u64)> {
    let out = finish(
        Command::new(BIN)
            .arg(file)
            .args(["--export", "folded"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| {
            let (stack, n) = l.rsplit_once(' ').unwrap();
            (stack.to_owned(), n.parse().unwrap())
        })
        .collect()
}

/// The share of the weight in stacks that end in `…;work;spin`.
fn spin_share(stacks: &[(String, u64)]) -> f64 {
    let total: u64 = stacks.iter().map(|s| s.1).sum();
    let spin: u64 = stacks
        .iter()
        .filter(|(s, _)| s.ends_with(";main;work;spin"))
        .map(|s| s.1)
        .sum();
    assert!(total > 0, "no samples");
    spin as f64 / total as f64
}

/// Files left in `dir` whose names start with a dot (a temporary twin not cleaned up).
fn hidden_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// A directory holding a `perf` script with this body (after `#!/bin/sh`).
fn fake_perf(name: &str, body: &str) -> PathBuf {
    let dir = scratch(name);
    let perf = dir.join("perf");
    std::fs::write(&perf, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&perf, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// `PATH` with `dir` first, then the system's.
fn path_first(dir: &Path) -> String {
    format!("{}:/usr/bin:/bin", dir.display())
}

#[test]
fn records_a_command_its_output_passing_and_its_status_kept() {
    let Some(busy) = busy_or_skip("record of busy") else {
        return;
    };
    let dir = scratch("record-status");
    let data = dir.join("busy.data");
    let out = finish(
        flametui(&busy.dir, &["record", "-o"])
            .arg(&data)
            .args(["--", "./busy", "1", "7"]),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{err}");
    assert_eq!(text(&out.stdout), "start\n", "the command's stdout only");
    assert!(err.contains("done\n"), "the command's stderr: {err}");
    assert!(
        err.contains(
            "flametui: recording ./busy 1 7 with call graph fp (busy keeps frame pointers ("
        ),
        "{err}"
    );
    // The summary: a table whose heaviest function is the busy loop.
    let table: Vec<&str> = err.lines().skip_while(|l| !l.starts_with("Top ")).collect();
    assert!(table.get(2).is_some_and(|l| l.ends_with("  spin")), "{err}");
    assert!(
        err.contains(&format!("flametui: the recording is in {}", data.display())),
        "{err}"
    );
    let stacks = folded(&data);
    let share = spin_share(&stacks);
    assert!(share > 0.8, "main;work;spin has {share} of {stacks:?}");
    assert!(hidden_files(&dir).is_empty(), "{:?}", hidden_files(&dir));
}

#[test]
fn without_frame_pointers_dwarf_is_chosen_and_unwinds() {
    let Some(busy) = busy_or_skip("record of busy-nofp") else {
        return;
    };
    let data = scratch("record-dwarf").join("nofp.data");
    let out = finish(flametui(&busy.dir, &["record", "-o"]).arg(&data).args([
        "--",
        "./busy-nofp",
        "0.5",
        "0",
    ]));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("with call graph dwarf (busy-nofp omits frame pointers ("),
        "{err}"
    );
    // Frame pointers would lose `work` and `main` here ([unknown];spin).
    let stacks = folded(&data);
    let share = spin_share(&stacks);
    assert!(share > 0.8, "main;work;spin has {share} of {stacks:?}");
}

#[test]
fn an_existing_output_is_replaced_only_once_the_recording_is_complete() {
    let Some(busy) = busy_or_skip("-o over a file") else {
        return;
    };
    let dir = scratch("record-replace");
    let data = dir.join("kept.data");
    std::fs::write(&data, "the old recording").unwrap();
    let mut child = flametui(&busy.dir, &["record", "-o"])
        .arg(&data)
        .args(["--", "./busy", "1.5", "0"])
        .spawn()
        .unwrap();
    // `start` comes once the command runs under perf: the old file is still whole.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 6];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"start\n");
    assert_eq!(
        std::fs::read_to_string(&data).unwrap(),
        "the old recording",
        "replaced while recording"
    );
    let out = wait_output(child);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let new = std::fs::read(&data).unwrap();
    assert!(
        new.starts_with(b"PERFILE2"),
        "not perf.data: {:?}",
        &new[..16]
    );
    assert!(spin_share(&folded(&data)) > 0.8);
    assert!(hidden_files(&dir).is_empty(), "{:?}", hidden_files(&dir));
}

#[test]
fn the_output_is_never_the_commands_own_binary() {
    let Some(busy) = busy_or_skip("-o the command") else {
        return;
    };
    let dir = scratch("record-self");
    let program = dir.join("busy");
    std::fs::copy(&busy.fp, &program).unwrap();
    let before = std::fs::read(&program).unwrap();
    for output in ["./busy", "busy"] {
        let out = finish(&mut flametui(
            &dir,
            &["record", "-o", output, "--", "./busy", "1", "0"],
        ));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "-o {output}: {err}");
        assert!(err.contains("refusing to write"), "{err}");
        assert!(
            out.stdout.is_empty(),
            "the command ran: {}",
            text(&out.stdout)
        );
        assert_eq!(std::fs::read(&program).unwrap(), before, "-o {output}");
    }
}

/// A script is run by its interpreter, whose frame pointers decide the call graph: the
/// script itself is still the command's file, never overwritten.
#[test]
fn the_output_is_never_the_commands_script() {
    let dir = scratch("record-script");
    let script = dir.join("run.sh");
    let body = "#!/bin/sh\necho ran\n";
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let on_path = format!("{}:/usr/bin:/bin", dir.display());
    for (output, command) in [("run.sh", "./run.sh"), ("./run.sh", "run.sh")] {
        let out =
            finish(flametui(&dir, &["record", "-o", output, "--", command]).env("PATH", &on_path));
        let err = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "-o {output} -- {command}: {err}"
        );
        assert!(err.contains("refusing to write"), "{err}");
        assert!(
            out.stdout.is_empty(),
            "the command ran: {}",
            text(&out.stdout)
        );
        assert_eq!(std::fs::read_to_string(&script).unwrap(), body);
    }
}

#[test]
fn output_to_dev_null_leaves_the_device() {
    let Some(busy) = busy_or_skip("-o /dev/null") else {
        return;
    };
    let null = Path::new("/dev/null");
    let out = finish(&mut flametui(
        &busy.dir,
        &["record", "-o", "/dev/null", "--", "./busy", "0.3", "0"],
    ));
    let device = std::fs::metadata(null).is_ok_and(|m| m.file_type().is_char_device());
    if !device {
        // Put the device back before failing: the rest of the system needs it.
        let _ = std::fs::remove_file(null);
        let _ = Command::new("mknod")
            .args(["-m", "666", "/dev/null", "c", "1", "3"])
            .status();
        panic!("/dev/null was replaced by a file");
    }
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("the recording is in /dev/null"), "{err}");
    assert_eq!(std::fs::metadata(null).unwrap().len(), 0);
}

#[test]
fn a_missing_command_is_127_and_no_command_a_usage_error() {
    let dir = scratch("record-missing");
    for missing in ["./no-such-program", "no-such-program-on-path"] {
        let out = finish(&mut flametui(&dir, &["record", "--", missing, "x"]));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(127), "{missing}: {err}");
        assert!(
            err.contains(&format!("cannot run `{missing}`: no such command")),
            "{err}"
        );
    }
    for args in [
        &["record"][..],
        &["record", "-o", "x.data"],
        &["record", "-F", "99"],
    ] {
        let out = finish(&mut flametui(&dir, args));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("nothing to record"), "{err}");
    }
    assert!(!dir.join("x.data").exists());
}

#[test]
fn top_without_a_terminal_is_a_usage_error() {
    let dir = scratch("top-no-tty");
    let out = finish(&mut flametui(&dir, &["top"]));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    // The help names the keys `top` has.
    let help = finish(&mut flametui(&dir, &["top", "--help"]));
    let help = text(&help.stdout);
    for keys in [
        "1 accumulate",
        "2 window",
        "3 decay",
        "4 diff",
        "< > window",
        "z freezes",
    ] {
        assert!(help.contains(keys), "{keys}: {help}");
    }
}

/// A perf that answers `--version` but refuses to record, as perf 6.1 does under
/// `perf_event_paranoid` 2, in a directory of its own per test (`name`): tests run in
/// parallel, and a directory made again by one test took the fake perf from under the
/// other (CI saw `cannot open …/perf-paranoid/perf`).
fn paranoid_perf(name: &str) -> PathBuf {
    fake_perf(
        name,
        &format!(
            "case \"$1\" in\n--version) echo 'perf version 6.1.0' ;;\nrecord) cat >&2 <<'EOF'\n\
             {PARANOID}EOF\nexit 255 ;;\n*) exit 1 ;;\nesac\n"
        ),
    )
}

#[test]
fn a_paranoid_refusal_as_root_names_the_container() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: the root variant of the paranoid refusal needs root");
        return;
    }
    let fake = paranoid_perf("perf-paranoid-root");
    let dir = scratch("paranoid-root");
    let data = dir.join("old.data");
    std::fs::write(&data, "the old recording").unwrap();
    let out = finish(
        flametui(&dir, &["record", "-o", "old.data", "--", "true"]).env("PATH", path_first(&fake)),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // After what is recorded and perf's own words (passed through), one sentence.
    let said = err
        .lines()
        .find(|l| l.starts_with("flametui: perf "))
        .unwrap_or_else(|| panic!("no message: {err}"));
    assert!(
        said.contains("kernel.perf_event_paranoid is 2")
            && said.contains("container")
            && said.contains("CAP_PERFMON"),
        "{said}"
    );
    assert!(
        err.contains("perf said:\n  Error:\n  Access to performance monitoring"),
        "{err}"
    );
    // Nothing recorded, nothing replaced.
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "the old recording");
    assert!(hidden_files(&dir).is_empty(), "{:?}", hidden_files(&dir));
}

#[test]
fn a_paranoid_refusal_as_a_user_names_the_sysctl() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: switching to another user needs root");
        return;
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let Some(setpriv) = setpriv else {
        eprintln!("SKIPPED: setpriv is not installed; the non-root paranoid case needs it");
        return;
    };
    let fake = paranoid_perf("perf-paranoid-user");
    let dir = scratch("paranoid-user");
    // nobody reads and runs everything from the test's target directory down.
    let open = |p: &Path| {
        let mode = std::fs::metadata(p).map(|m| m.permissions().mode());
        mode.is_ok_and(|m| m & 0o005 == 0o005)
    };
    let mut blocked = Path::new(BIN)
        .ancestors()
        .chain(fake.ancestors())
        .filter(|p| !p.as_os_str().is_empty() && !open(p));
    if let Some(p) = blocked.next() {
        eprintln!(
            "SKIPPED: the non-root paranoid case: {} is closed to other users",
            p.display()
        );
        return;
    }
    for (target, wanted) in [
        (&["--", "true"][..], "this program"),
        (&["-a"][..], "the whole system"),
    ] {
        let out = finish(
            Command::new(setpriv)
                .args([
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    BIN,
                    "record",
                ])
                .args(target)
                .current_dir(&dir)
                .env("PATH", path_first(&fake))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{target:?}: {err}");
        let level = if target == ["-a"] { "0" } else { "1" };
        assert!(
            err.contains(&format!(
                "perf is not allowed to profile {wanted} as this user: \
                 kernel.perf_event_paranoid is 2; allow it with \
                 `sudo sysctl kernel.perf_event_paranoid={level}`"
            )),
            "{err}"
        );
        assert!(!err.contains("container"), "{err}");
    }
}

#[test]
fn no_perf_on_path_says_what_to_install() {
    let empty = scratch("no-perf");
    let out =
        finish(flametui(&empty, &["record", "--", "/bin/true"]).env("PATH", empty.as_os_str()));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("perf is not installed or not on PATH")
            && err.contains("apt install linux-perf"),
        "{err}"
    );
}

#[test]
fn ubuntus_wrapper_without_the_kernels_build_names_the_package() {
    // The first lines of linux-tools-common's /usr/bin/perf when perf for the running
    // kernel is missing: on stderr, status 2, for `--version` too.
    let fake = fake_perf(
        "perf-ubuntu",
        "echo 'WARNING: perf not found for kernel 5.15.0-91' >&2\n\
         echo '' >&2\n\
         echo '  You may need to install the following packages for this specific kernel:' >&2\n\
         echo '    linux-tools-5.15.0-91-generic' >&2\n\
         echo '    linux-cloud-tools-5.15.0-91-generic' >&2\n\
         echo '' >&2\n\
         echo '  You may also want to install one of the following packages to keep up to date:' >&2\n\
         echo '    linux-tools-generic' >&2\n\
         echo '    linux-cloud-tools-generic' >&2\n\
         exit 2\n",
    );
    let dir = scratch("ubuntu");
    let out = finish(flametui(&dir, &["record", "--", "true"]).env("PATH", path_first(&fake)));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("perf is installed, but not the build for kernel 5.15.0-91")
            && err.contains("install linux-tools-5.15.0-91-generic"),
        "{err}"
    );
    assert!(
        err.contains("perf said:\n  WARNING: perf not found for kernel 5.15.0-91"),
        "{err}"
    );
}
