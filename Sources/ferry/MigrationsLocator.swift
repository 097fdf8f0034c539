import FerryStore
import Foundation

/// Finds the `migrations/` directory: the option, `$FERRY_MIGRATIONS_DIR`, `./migrations`, then places relative to
/// the executable (`share/ferry/migrations` in an install, the repository root in a SwiftPM build).
enum MigrationsLocator {
    static func locate(_ explicit: String?) -> String {
        if let explicit { return explicit }
        if let env = ProcessInfo.processInfo.environment["FERRY_MIGRATIONS_DIR"], !env.isEmpty { return env }
        var candidates = [FileManager.default.currentDirectoryPath + "/migrations"]
        // The running binary itself (argv[0] is just "ferry" when found through PATH).
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent("share/ferry/migrations").path)
            candidates.append(directory.appendingPathComponent("migrations").path)
            directory.deleteLastPathComponent()
        }
        // The baseline marks a migrations directory since history moved to history/ (MigrationBaseline).
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/" + MigrationBaseline.file) }
            ?? candidates[0]
    }
}
