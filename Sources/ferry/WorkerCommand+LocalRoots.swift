import FerryCore
import FerryWorker
import Foundation

extension WorkerCommand {
    /// The worker's local roots from `--local-root`, else `FERRY_LOCAL_ROOTS`; `--any-local-path` for none. A
    /// worker with neither refuses to start (exit 78): jobs would fail for good one by one instead.
    static func localRoots(given: [String], any: Bool, scripted: Bool) throws -> LocalRoots {
        let fromEnvironment = (ProcessInfo.processInfo.environment["FERRY_LOCAL_ROOTS"] ?? "")
            .split(separator: ":").map(String.init).filter { !$0.isEmpty }
        let directories = given.isEmpty ? fromEnvironment : given
        if any {
            guard given.isEmpty else {
                throw CLIUsageError(message: "--any-local-path and --local-root exclude each other: give the roots, or lift confinement")
            }
            return .unconfined
        }
        if directories.isEmpty {
            // Scripted handlers (rehearsals) move no data and touch no path.
            if scripted { return .none }
            throw WorkerConfigurationError(
                "no local roots: a worker reads upload sources and writes fetched files only inside folders you name. Give --local-root DIR (repeatable) or FERRY_LOCAL_ROOTS=/dir1:/dir2; for a single-user machine where every producer may reach every file of this user, --any-local-path")
        }
        do {
            return try LocalRoots(directories: directories)
        } catch {
            throw WorkerConfigurationError(error.description)
        }
    }
}
