//! Why `perf record` did not record, in one sentence that says what to install or which
//! setting to change, from what perf wrote on stderr. perf's own words follow it (a few
//! lines, sanitised), never alone.

use crate::text::sanitize;

/// At most this many of perf's lines are quoted.
const QUOTED: usize = 14;

/// How to install perf, by distribution.
pub const INSTALL: &str = "install it: `apt install linux-perf` (Debian), `apt install \
linux-tools-$(uname -r) linux-tools-generic` (Ubuntu), `dnf install perf` (Fedora, RHEL), \
`pacman -S perf` (Arch), `apk add perf` (Alpine)";

/// The message when no `perf` could be run at all.
pub fn not_installed(program: &str) -> String {
    format!(
        "cannot run `{}`: perf is not installed or not on PATH; {INSTALL}",
        sanitize(program)
    )
}

/// What went wrong, as one sentence with its remedy, when perf's stderr says something
/// known; `root` is whether flametui runs as root, `system` whether the whole system (or
/// another user's process) was asked for.
pub fn explain(stderr: &str, root: bool, system: bool) -> Option<String> {
    if let Some(rest) = after(stderr, "perf not found for kernel ") {
        let kernel = rest.split_whitespace().next().unwrap_or("this kernel");
        return Some(format!(
            "perf is installed, but not the build for kernel {}: install \
             linux-tools-{0}-generic (Ubuntu: `apt install linux-tools-$(uname -r)`)",
            sanitize(kernel)
        ));
    }
    if let Some(rest) = after(stderr, "E: linux-perf-") {
        let version = rest.split_whitespace().next().unwrap_or("");
        return Some(format!(
            "perf is installed, but not the build for this kernel: install linux-perf-{}",
            sanitize(version)
        ));
    }
    if let Some(rest) = after(stderr, "perf_event_paranoid setting is ") {
        let level = rest
            .split(|c: char| !(c.is_ascii_digit() || c == '-'))
            .next()
            .unwrap_or("?");
        return Some(if root {
            format!(
                "perf may not open events here although flametui runs as root \
                 (kernel.perf_event_paranoid is {}): this is a container or sandbox that \
                 blocks perf_event_open; it needs CAP_PERFMON (or CAP_SYS_ADMIN) and a seccomp \
                 profile that allows perf_event_open (Docker: `--cap-add PERFMON --security-opt \
                 seccomp=unconfined`; Kubernetes: a securityContext adding PERFMON)",
                sanitize(level)
            )
        } else {
            let wanted = if system { "0" } else { "1" };
            format!(
                "perf is not allowed to profile {} as this user: kernel.perf_event_paranoid is \
                 {}; allow it with `sudo sysctl kernel.perf_event_paranoid={wanted}` (make it \
                 last in /etc/sysctl.conf), grant CAP_PERFMON, or run as root",
                if system {
                    "the whole system"
                } else {
                    "this program"
                },
                sanitize(level)
            )
        });
    }
    if stderr.contains("No permission to enable") || stderr.contains("Permission denied") {
        return Some(if root {
            "perf was denied access although flametui runs as root: a container or sandbox \
             blocks perf_event_open or the tracing files; it needs CAP_PERFMON (or \
             CAP_SYS_ADMIN) and a seccomp profile that allows perf_event_open"
                .to_owned()
        } else {
            "perf was denied access: lower kernel.perf_event_paranoid (`sudo sysctl \
             kernel.perf_event_paranoid=1`), grant CAP_PERFMON, or run as root"
                .to_owned()
        });
    }
    if stderr.contains("/sys/kernel/tracing/events/") || stderr.contains("tracepoint") {
        return Some(
            "the kernel's tracepoints (sched:sched_switch, for --off-cpu) cannot be read: mount \
             tracefs (`mount -t tracefs nodev /sys/kernel/tracing`) and run as root, or record \
             without --off-cpu"
                .to_owned(),
        );
    }
    if stderr.contains("not supported") || stderr.contains("syscall returned with") {
        return Some(
            "this kernel or CPU lacks an event or call-graph mode perf was asked for (LBR is \
             Intel's only; in a virtual machine hardware events may be missing): try another \
             --call-graph, or name an event with --perf='-e cpu-clock'"
                .to_owned(),
        );
    }
    if stderr.contains("event syntax error") || stderr.contains("unknown option") {
        return Some(
            "perf did not understand its options (check --perf; `perf record --help` lists them)"
                .to_owned(),
        );
    }
    None
}

/// The full message: the explanation (or that perf failed with `status`), then perf's
/// own first lines, indented and sanitised.
pub fn message(stderr: &str, status: Option<i32>, root: bool, system: bool) -> String {
    let head = explain(stderr, root, system).unwrap_or_else(|| {
        status.map_or_else(
            || "perf record ended by a signal without recording".to_owned(),
            |s| format!("perf record failed (exit status {s}) without recording"),
        )
    });
    let said: Vec<String> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("[ perf record:"))
        .take(QUOTED)
        .map(|l| format!("  {}", sanitize(l)))
        .collect();
    if said.is_empty() {
        head
    } else {
        format!("{head}\nperf said:\n{}", said.join("\n"))
    }
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// perf 6.1's words as an unprivileged user asks for `-a`.
    pub const PARANOID: &str = "Error:
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

    #[test]
    fn paranoid_says_the_sysctl_or_the_container() {
        let m = explain(PARANOID, false, true).unwrap();
        assert!(m.contains("kernel.perf_event_paranoid is 2"), "{m}");
        assert!(m.contains("sysctl kernel.perf_event_paranoid=0"), "{m}");
        let m = explain(PARANOID, false, false).unwrap();
        assert!(m.contains("perf_event_paranoid=1"), "{m}");
        let m = explain(PARANOID, true, true).unwrap();
        assert!(m.contains("container") && m.contains("CAP_PERFMON"), "{m}");
    }

    #[test]
    fn a_missing_kernel_build() {
        let ubuntu = "WARNING: perf not found for kernel 5.15.0-91\n\n  You may need to install \
                      the following packages for this specific kernel:\n";
        let m = explain(ubuntu, false, false).unwrap();
        assert!(
            m.contains("kernel 5.15.0-91") && m.contains("linux-tools"),
            "{m}"
        );
        let debian = "/usr/bin/perf: line 13: exec: perf_5.10: not found\nE: linux-perf-5.10 is not installed.\n";
        assert!(
            explain(debian, false, false)
                .unwrap()
                .contains("linux-perf-5.10")
        );
    }

    #[test]
    fn perfs_words_follow_sanitised() {
        let m = message(
            "Error:\nbad \x1b[31mthing\n[ perf record: Woken up 1 times ]\n",
            Some(255),
            false,
            false,
        );
        assert!(m.starts_with("perf record failed (exit status 255)"), "{m}");
        assert!(m.contains("perf said:\n  Error:\n  bad "), "{m}");
        assert!(!m.contains('\x1b') && !m.contains("Woken"), "{m}");
        assert!(not_installed("perf").contains("apt install linux-perf"));
    }
}
