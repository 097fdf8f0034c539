import FerryWorker
import Logging

extension WorkerCommand {
    /// `asked` (`--concurrency`), or fewer when the file descriptors (`RLIMIT_NOFILE`, its soft limit first raised
    /// to the hard one) do not allow that many jobs at once: then a notice says how many run and why.
    static func fittedConcurrency(_ asked: Int, logger: Logger) -> Int {
        guard let budget = FileDescriptorBudget.current(databaseConnections: min(8, asked + 3) + 2) else { return asked }
        let fitted = budget.concurrency(asked: asked)
        if fitted < asked {
            logger.notice(
                "too few file descriptors for --concurrency \(asked): running \(fitted) jobs at once (RLIMIT_NOFILE \(budget.limit)); raise the limit (ulimit -n, LimitNOFILE=) to run more",
                metadata: [
                    "concurrency_asked": "\(asked)", "concurrency_used": "\(fitted)", "nofile_limit": "\(budget.limit)",
                    "nofile_hard_limit": "\(budget.hardLimit)", "open_fds": "\(budget.open)", "reserved_fds": "\(budget.reserved)",
                    "fds_per_job": "\(FileDescriptorBudget.perJob)",
                ])
        }
        return fitted
    }
}
