import Foundation
import Postgres

/// Fresh databases on the benchmark cluster.
struct BenchDatabase {
    let adminURL: String

    func create(_ name: String) async throws -> String {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: adminURL, poolSize: 1))
        defer { admin.close() }
        try await admin.withConnection { connection in
            try connection.execute("DROP DATABASE IF EXISTS \(PostgresIdentifier(name).quoted)")
            try connection.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted)")
        }
        return try url(name)
    }

    /// A login role that is a member of `group` only (created once per cluster), and the URL of `database` for it.
    func login(inRole group: String, database: String) async throws -> String {
        let name = "bench_" + group.filter { $0.isLetter || $0.isNumber || $0 == "_" }
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: adminURL, poolSize: 1))
        defer { admin.close() }
        try await admin.withConnection { connection in
            if try connection.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [name]).rows.isEmpty {
                try connection.execute("CREATE ROLE \(PostgresIdentifier(name).quoted) LOGIN")
            }
            try connection.execute("GRANT \(PostgresIdentifier(group).quoted) TO \(PostgresIdentifier(name).quoted)")
        }
        // postgresql://USER@HOST…: swap the user.
        guard let scheme = database.range(of: "://"), let at = database.range(of: "@", range: scheme.upperBound..<database.endIndex)
        else { throw BenchError("cannot set the user in \(database): use a postgresql://USER@HOST/DB URL") }
        return String(database[..<scheme.upperBound]) + name + String(database[at.lowerBound...])
    }

    /// The URL of database `name` on the benchmark cluster.
    func url(_ name: String) throws -> String {
        guard let slash = adminURL.range(of: "/", options: .backwards) else { return adminURL }
        return String(adminURL[..<slash.upperBound]) + name
    }
}

/// Runs a child process and returns its wall time in seconds.
func timedRun(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    let start = ContinuousClock.now
    try process.run()
    process.waitUntilExit()
    let elapsed = ContinuousClock.now - start
    guard process.terminationStatus == 0 else {
        throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Runs a child process; returns its wall time in seconds and its peak resident memory (`VmHWM`, KiB), read from
/// /proc while it runs (VmHWM only grows, so the last reading is the peak up to a few milliseconds before exit).
func timedRunWithPeakMemory(_ executable: String, _ arguments: [String]) throws -> (Double, Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    let start = ContinuousClock.now
    try process.run()
    var peak = 0
    while process.isRunning {
        if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        {
            peak = max(peak, kib)
        }
        usleep(5_000)
    }
    process.waitUntilExit()
    let elapsed = ContinuousClock.now - start
    guard process.terminationStatus == 0 else {
        throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, peak)
}

/// Writes `count` JSON Lines made by `line` to `path`, a megabyte at a time (a million lines never sit in memory).
func writeJSONLines(_ path: String, count: Int, line: (Int) -> String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw BenchError("cannot write \(path)")
    }
    var text = ""
    for index in 0..<count {
        text += line(index)
        text += "\n"
        if text.utf8.count > 1 << 20 {
            handle.write(Data(text.utf8))
            text = ""
        }
    }
    handle.write(Data(text.utf8))
    try handle.close()
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}
