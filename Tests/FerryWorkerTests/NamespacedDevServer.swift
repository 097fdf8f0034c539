import FerryCore
import FerryTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `ferry dev-server` process inside a ``NetworkNamespace``: its loopback port is reachable only from inside,
/// so its control routes are called with curl run there.
final class NamespacedDevServer: @unchecked Sendable {
    let process: BackgroundProcess
    let namespace: NetworkNamespace
    let storage: String
    let appSecretFile: String
    let baseURL: String

    init(in namespace: NetworkNamespace) async throws {
        self.namespace = namespace
        storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-nsdev-\(UUID().uuidString)").path
        appSecretFile = storage + ".app-secret"
        guard FileManager.default.createFile(atPath: appSecretFile, contents: Data("ns-secret-\(UUID().uuidString)".utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestSupportError("cannot write \(appSecretFile)")
        }
        process = try BackgroundProcess(
            ferry: ["dev-server", "--port", "0", "--storage", storage, "--app-key", DevServerProcess.appKey, "--app-secret-file", appSecretFile,
                    "--log-level", "warning"],
            databaseURL: "", launcher: namespace.launcher)
        var found = ""
        try await eventually(timeout: .seconds(300), "the dev server to listen") { [process] in
            guard let line = process.log.split(separator: "\n").first(where: { $0.contains("listening on http://") }) else { return false }
            found = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
            return true
        }
        baseURL = found
    }

    deinit {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: storage)
        try? FileManager.default.removeItem(atPath: appSecretFile)
    }

    /// `ferry account add` arguments pointing every host at this server, with its app secret.
    var accountOptions: [String] {
        ["--app-key", DevServerProcess.appKey, "--app-secret-file", appSecretFile, "--api-url", baseURL, "--content-url", baseURL,
         "--authorize-url", baseURL]
    }

    /// A control request from inside the namespace; the parsed JSON answer.
    func request(_ method: String, _ path: String, json: JSONValue? = nil) async throws -> JSONValue {
        var command = "curl -sS --fail-with-body --max-time 60 -X \(method) \(NetworkNamespace.quoted(baseURL + path))"
        if let json { command += " -H 'Content-Type: application/json' --data-binary \(NetworkNamespace.quoted(json.jsonText))" }
        let text = try await namespace.runDetached(command)
        return text.isEmpty ? .null : try JSONValue.parse(text)
    }

    /// A new refresh token for `account` (creating it).
    func refreshToken(for account: String) async throws -> String {
        guard let token = try await request("POST", "/__dev/accounts", json: .object(["account": .string(account)]))["refresh_token"]?.stringValue else {
            throw TestSupportError("no refresh token from the dev server")
        }
        return token
    }

    /// Names of the files stored for `account` under `folder` (the server's storage on disk).
    func storedNames(account: String, folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: storage + "/" + account + folder)) ?? []).sorted()
    }
}
