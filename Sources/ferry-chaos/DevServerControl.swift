import FerryCore
import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The `ferry dev-server` process of the run: started, killed with SIGKILL and restarted on the same port with
/// the same storage, and driven through its `/__dev/` control routes and the Dropbox API.
actor DevServerControl {
    let ferry: String
    let storage: String
    let appKey = "ferry-chaos"
    let appSecret: String
    let appSecretFile: String
    let logDirectory: String
    let http: ChaosHTTP
    private(set) var port = 0
    private var process: ManagedProcess?
    private(set) var generation = 0
    /// Server processes that died without being killed.
    private(set) var crashes: [String] = []
    /// The latest `/__dev/stats` of each server process (a restart starts counting from zero).
    private var stats: [Int: JSONValue] = [:]

    init(ferry: String, storage: String, workDirectory: String, logDirectory: String, http: ChaosHTTP) throws {
        self.ferry = ferry
        self.storage = storage
        self.logDirectory = logDirectory
        self.http = http
        appSecret = "chaos-" + UUID().uuidString
        appSecretFile = workDirectory + "/app-secret"
        guard FileManager.default.createFile(atPath: appSecretFile, contents: Data(appSecret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ChaosError("cannot write \(appSecretFile)")
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server (on a free port the first time, then on the same one) and waits until it listens.
    func start(tokenLifetime: Double) async throws {
        var lastLog = ""
        // Right after a SIGKILL the port can take a moment to be free again.
        for _ in 1...20 {
            generation += 1
            let logPath = logDirectory + "/dev-server-\(generation).log"
            let started = try ManagedProcess(
                label: "dev-server", executable: ferry,
                arguments: ["dev-server", "--port", "\(port)", "--storage", storage, "--app-key", appKey,
                            "--app-secret-file", appSecretFile, "--token-lifetime", "\(tokenLifetime)", "--log-level", "warning"],
                environment: ProcessInfo.processInfo.environment, logPath: logPath)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && started.isRunning {
                if let line = started.log.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
                   let colon = line.lastIndex(of: ":"), let bound = Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                {
                    port = bound
                    process = started
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            lastLog = started.log
            started.signal(SIGKILL)
            _ = await started.waitForExit(timeout: 5)
            try await Task.sleep(for: .milliseconds(250))
        }
        throw ChaosError("the dev server did not start: \(lastLog.suffix(500))")
    }

    /// SIGKILL (nothing saved on the way out, like a crash), then the same server again.
    func crashAndRestart(tokenLifetime: Double, faults: JSONValue) async throws {
        await pollStats()
        let old = process
        // Forgotten before the signal, so `reviveIfCrashed` never takes our own kill for a crash.
        process = nil
        old?.signal(SIGKILL)
        _ = await old?.waitForExit(timeout: 10)
        try await start(tokenLifetime: tokenLifetime)
        try await setFaults(faults)
    }

    /// A server that exited although nobody stopped it (a crash: a bug) is recorded and started again.
    func reviveIfCrashed(tokenLifetime: Double, faults: JSONValue) async throws {
        guard let current = process, !current.isRunning else { return }
        crashes.append("the dev server exited with status \(current.exitStatus ?? -1) on its own; log: \(current.logPath)")
        process = nil
        try await start(tokenLifetime: tokenLifetime)
        try await setFaults(faults)
    }

    /// SIGTERM and wait.
    func stop() async {
        await pollStats()
        let old = process
        process = nil
        old?.signal(SIGTERM)
        if await old?.waitForExit(timeout: 10) == nil { old?.signal(SIGKILL) }
    }

    // MARK: Control routes

    func setFaults(_ faults: JSONValue) async throws {
        let url = baseURL + "/__dev/faults"
        let http = self.http
        _ = try await ChaosHTTP.retrying("setting the dev server's faults") { try await http.json(.POST, url, faults) }
    }

    /// A new refresh token of `account` (the account is created on first use).
    func refreshToken(account: String) async throws -> String {
        let reply = try await http.json(.POST, baseURL + "/__dev/accounts", .object(["account": .string(account)]))
        guard let token = reply["refresh_token"]?.stringValue else { throw ChaosError("no refresh token from the dev server") }
        return token
    }

    /// An access token for the run's own API calls (retried: OAuth may be under faults too).
    func accessToken(refreshToken: String) async throws -> String {
        let (url, http, appKey, appSecret) = (baseURL + "/oauth2/token", self.http, self.appKey, self.appSecret)
        let form = "grant_type=refresh_token&refresh_token=\(Self.formEncode(refreshToken))&client_id=\(Self.formEncode(appKey))&client_secret=\(Self.formEncode(appSecret))"
        return try await ChaosHTTP.retrying("getting an access token") {
            let reply = try await http.send(.POST, url, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
            guard reply.status == 200, let token = try reply.json()["access_token"]?.stringValue else {
                throw ChaosError("token request answered \(reply.status): \(reply.text.prefix(200))")
            }
            return token
        }
    }

    /// `/2/files/upload` of a whole local file (setup, before any fault is on).
    func upload(localPath: String, to path: String, token: String) async throws {
        guard let data = FileManager.default.contents(atPath: localPath) else { throw ChaosError("cannot read \(localPath)") }
        let argument = JSONValue.object(["path": .string(path), "mode": .string("add")]).jsonText
        let reply = try await http.send(
            .POST, baseURL + "/2/files/upload",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/octet-stream"), ("Dropbox-API-Arg", argument)],
            body: Array(data))
        guard reply.status == 200 else { throw ChaosError("uploading \(path) for the fetches answered \(reply.status): \(reply.text.prefix(300))") }
    }

    /// `PUT /__dev/web/PATH`: a file the web fetches will download from `/web/PATH`.
    func putWebFile(localPath: String, path: String) async throws {
        guard let data = FileManager.default.contents(atPath: localPath) else { throw ChaosError("cannot read \(localPath)") }
        let reply = try await http.send(.PUT, baseURL + "/__dev/web/" + path, body: Array(data))
        guard reply.status == 200 else { throw ChaosError("storing web file \(path) answered \(reply.status): \(reply.text.prefix(300))") }
    }

    /// Every file and folder of the account, through `list_folder` (recursive) and `list_folder/continue`.
    func listEverything(token: String) async throws -> [JSONValue] {
        var entries: [JSONValue] = []
        var page = try await rpc("files/list_folder", .object(["path": .string(""), "recursive": .bool(true), "limit": .int(2000)]), token: token)
        while true {
            entries += page["entries"]?.arrayValue ?? []
            guard page["has_more"]?.boolValue == true, let cursor = page["cursor"]?.stringValue else { return entries }
            page = try await rpc("files/list_folder/continue", .object(["cursor": .string(cursor)]), token: token)
        }
    }

    private func rpc(_ route: String, _ argument: JSONValue, token: String) async throws -> JSONValue {
        try await http.json(.POST, baseURL + "/2/" + route, argument, headers: [("Authorization", "Bearer \(token)")])
    }

    // MARK: Statistics

    /// Keeps the current process's statistics (called every few seconds: a SIGKILL loses what was not read).
    func pollStats() async {
        guard process?.isRunning == true else { return }
        if let reply = try? await http.json(.GET, baseURL + "/__dev/stats", nil) { stats[generation] = reply }
    }

    /// A counter summed over every server process of the run (`faults_injected`, `token_refreshes_per_account` …).
    func summed(_ key: String) -> [String: Int] {
        var total: [String: Int] = [:]
        for snapshot in stats.values {
            for (name, value) in snapshot[key]?.objectValue ?? [:] { total[name, default: 0] += Int(value.intValue ?? 0) }
        }
        return total
    }

    func summedCount(_ key: String) -> Int {
        stats.values.reduce(0) { $0 + Int($1[key]?.intValue ?? 0) }
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
