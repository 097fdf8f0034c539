import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A resource of this machine that a job ran short of: not the job's fault and not the remote side's, so the job
/// is put back (deferred, no attempt used) with a backoff that grows while the shortage lasts, instead of failing.
public enum ResourceShortage: String, Sendable, Hashable, CaseIterable {
    /// A local write found the file system full (`ENOSPC`) or the user's quota used up (`EDQUOT`).
    case noSpace = "no_space"
    /// An open or a socket found the process's or the system's file descriptors used up (`EMFILE`, `ENFILE`).
    case fileDescriptors = "fd_limit"

    /// The shortage an `errno` value reports, if it is one.
    public init?(errno code: Int32) {
        switch code {
        case ENOSPC, EDQUOT: self = .noSpace
        case EMFILE, ENFILE: self = .fileDescriptors
        default: return nil
        }
    }

    /// The shortage behind `error`, when it is a system call's (`POSIXFailure`, NIO's `IOError`) or a job failure
    /// that already names one.
    public init?(of error: any Error) {
        switch error {
        case let failure as JobFailure:
            guard case .shortage(let shortage) = failure.kind else { return nil }
            self = shortage
        case let failure as POSIXFailure:
            self.init(errno: failure.code)
        case let failure as IOError:
            self.init(errno: failure.errnoCode)
        default:
            return nil
        }
    }

    /// What ran short, for messages.
    public var what: String {
        switch self {
        case .noSpace: "no space left on the local file system"
        case .fileDescriptors: "no file descriptor left (RLIMIT_NOFILE)"
        }
    }
}
