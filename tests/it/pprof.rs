//! A Go CPU profile (pprof) in the viewer: the header names the metric among the others
//! with its duration and period, frames are Go functions, the library table lists the
//! Go binary's mapping.

use insta::assert_snapshot;

use crate::support::{explore, text, typing};

const CPU: &str = "pprof-cpu.pb.gz";

#[test]
fn a_go_cpu_profile_at_80x24() {
    let screen = text(&explore(CPU, 80, 24, Vec::new()));
    assert!(screen.contains("pprof"), "{screen}");
    assert!(screen.contains("runtime.main"), "{screen}");
    assert_snapshot!("pprof_cpu_80x24", screen);
}

#[test]
fn the_header_names_the_metric_and_the_library_table_the_binary() {
    let wide = text(&explore(CPU, 200, 24, Vec::new()));
    assert!(
        wide.contains("metric cpu (nanoseconds) of samples, cpu; duration 637 ms"),
        "{wide}"
    );
    let libs = text(&explore(CPU, 80, 24, typing("L")));
    assert!(libs.contains("pprof-demo"), "{libs}");
}
