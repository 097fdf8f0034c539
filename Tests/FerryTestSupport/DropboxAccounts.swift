import Crypto
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

    /// SHA-256 of a file, hex, read in 1 MiB pieces: in process, so no test thread waits on a child.
    public static func sha256(_ path: String) throws -> String {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? file.close() }
        var hasher = SHA256()
        while let piece = try file.read(upToCount: 1 << 20), !piece.isEmpty { hasher.update(data: piece) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
