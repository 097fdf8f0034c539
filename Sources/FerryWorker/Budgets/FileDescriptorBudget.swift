import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// How many jobs the process's file descriptors (`RLIMIT_NOFILE`) let it run at once.
///
/// A worker asked for more jobs than its descriptors allow would fail opens and connects mid-job (`EMFILE`) at
/// random; it runs fewer jobs instead, and says so. The estimate is deliberately rough and on the safe side: each
/// job may hold ``perJob`` descriptors at once, and the process keeps what is open at start, its PostgreSQL
/// connections, the event loops' descriptors and a margin.
public struct FileDescriptorBudget: Sendable, Equatable {
    /// Descriptors one running job may hold at once: an HTTP connection (two while one is replaced), the file it
    /// reads or writes, and that file's folder.
    public static let perJob = 4
    /// Kept beside the jobs for the metrics listener, DNS lookups, the scheduler and the unexpected.
    public static let margin = 16

    /// The soft limit in force (after `raise()`).
    public var limit: Int
    /// The hard limit: how far the soft one could be raised.
    public var hardLimit: Int
    /// Descriptors open when the budget was taken.
    public var open: Int
    /// Descriptors kept for everything but the jobs (PostgreSQL connections, event loops, margin).
    public var reserved: Int

    public init(limit: Int, hardLimit: Int, open: Int, reserved: Int) {
        self.limit = limit
        self.hardLimit = hardLimit
        self.open = open
        self.reserved = reserved
    }

    /// Jobs at once that fit: at most `asked`, at least 1.
    public func concurrency(asked: Int) -> Int {
        max(1, min(asked, (limit - open - reserved) / Self.perJob))
    }

    /// Raises the soft limit to the hard one (as servers do: the soft limit is a default for programs that never
    /// ask for more), then takes the budget of a process that will open `databaseConnections` connections to
    /// PostgreSQL. Nil where the limit cannot be read.
    public static func current(databaseConnections: Int) -> FileDescriptorBudget? {
        #if canImport(Glibc)
            var limits = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return nil }
            if limits.rlim_cur < limits.rlim_max {
                var raised = limits
                // An unlimited hard limit (RLIM_INFINITY, all ones) is not a number the kernel takes for the soft one
                // (fs.nr_open caps it).
                raised.rlim_cur = limits.rlim_max == rlim_t.max ? 1 << 20 : limits.rlim_max
                if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
            }
            let cap = UInt64(Int.max)
            // Each event loop holds an epoll, an eventfd and a timerfd.
            let eventLoops = 3 * System.coreCount
            return FileDescriptorBudget(
                limit: Int(min(UInt64(limits.rlim_cur), cap)), hardLimit: Int(min(UInt64(limits.rlim_max), cap)),
                open: openDescriptors(), reserved: databaseConnections + eventLoops + margin)
        #else
            return nil
        #endif
    }

    /// Descriptors this process has open now (`/proc/self/fd`, less the one that lists it); 3 where it cannot tell.
    static func openDescriptors() -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return 3 }
        return max(0, entries.count - 1)
    }
}
