import FerryCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `ferry dev-server` process on a free port; its `/__dev/` control routes are ``DevServerControl``'s.
public final class DevServerProcess: DevServerControl, @unchecked Sendable {
    public let process: BackgroundProcess
    public let storage: String
    public let baseURL: String
    public static let appKey = "ferry-dev"
    /// The app secret the server checks (random per server), and the file that holds it: refresh tokens from
    /// ``refreshToken(for:)`` only refresh with it, so every linked account needs `--app-secret-file` too.
    public let appSecret: String
    public let appSecretFile: String

    /// Starts the server with extra `ferry dev-server` options (faults, token lifetime …).
    public init(_ options: [String] = []) async throws {
        storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-dropbox-\(UUID().uuidString)").path
        appSecret = "dev-secret-" + UUID().uuidString
        appSecretFile = storage + ".app-secret"
        guard FileManager.default.createFile(atPath: appSecretFile, contents: Data(appSecret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestSupportError("cannot write \(appSecretFile)")
        }
        process = try BackgroundProcess(
            ferry: ["dev-server", "--port", "0", "--storage", storage, "--app-key", Self.appKey, "--app-secret-file", appSecretFile,
                    "--log-level", "warning"] + options,
            databaseURL: "")
        var found: String?
        try await eventually(timeout: .seconds(300), "the dev server to listen") { [process] in
            guard let line = process.log.split(separator: "\n").first(where: { $0.contains("listening on http://") }) else {
                return false
            }
            found = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
            return true
        }
        baseURL = found!
    }

    deinit {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: storage)
        try? FileManager.default.removeItem(atPath: appSecretFile)
    }
}
