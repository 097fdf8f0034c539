import Foundation

/// Accounts on a dev server, linked the way a user does it: `ferry account add … --refresh-token-file -`.
public enum DropboxAccounts {
    /// A fixed test key (32 bytes, base64). Real deployments generate their own.
    public static let secretKey = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
    public static var environment: [String: String] { ["FERRY_SECRET_KEY": secretKey] }

    /// Adds `name` on `server` to the database and returns the refresh token it was given.
    @discardableResult
    public static func add(
        _ name: String, server: DevServerProcess, databaseURL: String, verify: Bool = true, extra: [String] = []
    ) async throws -> String {
        let token = try await server.refreshToken(for: name)
        let result = try await FerryProcess.run(
            ["account", "add", name, "--provider", "dropbox", "--app-key", DevServerProcess.appKey, "--refresh-token-file", "-"]
                + server.urlOptions + server.secretOptions + (verify ? [] : ["--no-verify"]) + extra,
            databaseURL: databaseURL, stdin: token + "\n", environment: environment)
        guard result.status == 0 else {
            throw TestSupportError("ferry account add failed (\(result.status)): \(result.stderr)")
        }
        return token
    }

    /// Writes `count` bytes from /dev/urandom to `path` (fast, without holding the file in memory).
    public static func randomFile(_ path: String, size: Int) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer {
            try? output.close()
            try? input.close()
        }
        var left = size
        while left > 0 {
            let data = input.readData(ofLength: min(left, 1 << 20))
            output.write(data)
            left -= data.count
        }
    }

    /// SHA-256 of a file, hex (via sha256sum, which streams).
    public static func sha256(_ path: String) throws -> String {
        try TestTier.refuseInFastTier("a sha256sum process")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
