# Sourced by the benchmark scripts: `work_dir NAME` makes and prints a temporary directory
# for a run's inputs, outputs and tools. It is in memory (a tmpfs) when there is one: a
# host that reclaims page cache left idle for a moment (the kernel's DAMON `pageout`, on
# some virtual machines) reads a 200 MB input or a tool's code from disk again between
# runs, which made single runs up to three times as long. TMPDIR overrides it.
work_dir() {
  local base=${TMPDIR:-}
  if [ -z "$base" ]; then
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=/dev/shm; else base=/tmp; fi
  fi
  mktemp -d "$base/flametui-$1.XXXXXX"
}
