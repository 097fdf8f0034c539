import Foundation
import Synchronization

/// The moto S3 server the integration tests talk to: `FERRY_TEST_S3_URL` when set (scripts/test.sh
/// starts one), otherwise one this process starts with scripts/moto.sh and stops at exit.
public enum MotoServer {
    /// The server's base URL, or why there is none. Started at most once per test process.
    public static let url: Result<String, MotoUnavailable> = locate()

    /// Directory of a server this process started, for the exit handler.
    private static let startedIn = Mutex<String?>(nil)

    private static func locate() -> Result<String, MotoUnavailable> {
        if let url = ProcessInfo.processInfo.environment["FERRY_TEST_S3_URL"], !url.isEmpty {
            return .success(url)
        }
        if (try? TestTier.refuseInFastTier("a moto server")) == nil {
            return .failure(MotoUnavailable(reason: "the fast tier starts no process"))
        }
        // Tests/FerryTestSupport/MotoServer.swift → the repository root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/moto.sh").path
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-s3-tests-moto-\(ProcessInfo.processInfo.processIdentifier)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, "start", dir]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(MotoUnavailable(reason: "could not run \(script): \(error)"))
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let url = printed.split(separator: "\n").last.map(String.init), url.hasPrefix("http") else {
            return .failure(MotoUnavailable(reason: "scripts/moto.sh start failed (\(process.terminationStatus)): \(complaint)"))
        }
        startedIn.withLock { $0 = dir }
        atexit {
            MotoServer.stop()
        }
        return .success(url)
    }

    /// Stops a server this process started (not one it was given).
    static func stop() {
        guard let dir = startedIn.withLock({ $0 }) else { return }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/moto.sh").path, "stop", dir]
        try? process.run()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// Neither `FERRY_TEST_S3_URL` nor a moto server of our own: the integration tests fail with this.
public struct MotoUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String {
        "no S3 test server: set FERRY_TEST_S3_URL or install moto (scripts/install-deps.sh); \(reason)"
    }
}
