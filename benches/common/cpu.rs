//! CPU time from /proc (no unsafe, no libc), for the benchmarks against the embedded engine.

/// CPU time of every thread of this process, in nanoseconds (per-thread `schedstat`).
pub fn self_cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0 };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .sum()
}
