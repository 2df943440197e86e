//! This process's memory, read from `/proc/self/status`: the figures `ripple
//! bench` reports and the per-phase trace `RIPPLE_DEBUG_MEMORY=1` prints.
//! A bottom layer, so the indexer and the resolvers can trace without
//! importing the benchmark.

/// Peak resident set size of this process (Linux `VmHWM`), 0 elsewhere.
pub fn peak_rss_mb() -> f64 {
    proc_status_mb("VmHWM:")
}

/// Current resident set size of this process (Linux `VmRSS`), 0 elsewhere.
pub fn current_rss_mb() -> f64 {
    proc_status_mb("VmRSS:")
}

fn proc_status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with(field)).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<f64>().ok())
            })
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// With `RIPPLE_DEBUG_MEMORY` set, print the resident set after a phase:
/// how a run's memory breaks down by phase.
pub fn trace(phase: &str) {
    if std::env::var_os("RIPPLE_DEBUG_MEMORY").is_some() {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let start = START.get_or_init(std::time::Instant::now);
        eprintln!(
            "memory after {phase}: {:.0} MB resident, {:.0} MB peak ({:.0} ms since the first phase)",
            current_rss_mb(),
            peak_rss_mb(),
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
}
