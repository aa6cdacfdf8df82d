import Foundation

/// CPU time used so far, by the whole machine and by this process: taken before and after a
/// workload, it says how many cores the workload kept busy — the ceiling of a concurrency
/// workload on a small machine (W14: the readers, the writer and, for PostgreSQL, the server
/// processes behind each connection all share the same cores).
struct CPUTime {
    /// Seconds the machine's processors have been busy (user, nice, system, interrupts),
    /// summed over processors, from Linux's `/proc/stat`; `nil` where that cannot be read.
    let machineBusySeconds: Double?
    /// Seconds this process has run (user and system), summed over its threads.
    let processSeconds: Double

    /// The CPU time used up to now.
    static func now() -> CPUTime {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let process = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return CPUTime(machineBusySeconds: machineBusySeconds(), processSeconds: process)
    }

    /// The first line of `/proc/stat` (`cpu user nice system idle iowait irq softirq …`, in
    /// clock ticks): the ticks not spent idle, waiting for I/O or stolen by a hypervisor.
    private static func machineBusySeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let ticks = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().compactMap { Double($0) }
        guard ticks.count >= 7 else { return nil }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return perSecond > 0 ? busy / perSecond : nil
    }

    /// The machine's counters advance in clock ticks (usually a hundredth of a second): below
    /// this many seconds their difference says too little to report.
    static let shortestMachineSpan = 0.25

    /// The cores kept busy between `start` and this sample over `seconds` of wall time: the
    /// machine's (`nil` when unknown or the span too short to tell) and this process's.
    func cores(since start: CPUTime, over seconds: Double) -> (machine: Double?, process: Double) {
        guard seconds > 0 else { return (nil, 0) }
        let machine = seconds < Self.shortestMachineSpan ? nil
            : machineBusySeconds.flatMap { end in start.machineBusySeconds.map { (end - $0) / seconds } }
        return (machine, (processSeconds - start.processSeconds) / seconds)
    }
}
