import FerryCore
import FerryWorker
import Foundation
import Postgres
import Synchronization

/// What the producer can know of the local paths a job names, checked at enqueue so that a job a worker would
/// refuse (`outside_local_roots`) is never written.
///
/// - A local `--to` (a fetch's target, an upload into a local folder) is a path on the worker's machine: it must
///   be absolute, always. A relative one would be read against this shell's folder, which means nothing to a
///   worker elsewhere.
/// - The workers' roots, when the producer is told them: `FERRY_ENQUEUE_LOCAL_ROOTS` (colon-separated, as the
///   workers' `FERRY_LOCAL_ROOTS`), else the database setting `local_roots` (`ferry.settings`, written by the
///   owner for the whole fleet). A fetch's target or an upload's source outside them is refused. Told nothing,
///   nothing more is checked: workers on other machines do not publish their folders. (Not `FERRY_LOCAL_ROOTS`
///   itself: a shell that sets it for a worker may enqueue for workers elsewhere.)
enum ProducerLocalRoots {
    /// The roots as stated, and where they were stated (for the message).
    struct Stated: Sendable {
        var directories: [String]
        var origin: String
        /// The same folders as a worker reads them, when they exist here (symbolic links resolved).
        var local: LocalRoots?
    }

    /// `FERRY_ENQUEUE_LOCAL_ROOTS`, read once.
    static let environment: Stated? = stated(
        ProcessInfo.processInfo.environment["FERRY_ENQUEUE_LOCAL_ROOTS"] ?? "", origin: "FERRY_ENQUEUE_LOCAL_ROOTS")

    /// The database's `local_roots`, set by `load(setting:)` before the enqueue reads its input.
    private static let database = Mutex<Stated?>(nil)

    /// The roots that apply: the environment's, else the database's.
    static var current: Stated? { environment ?? database.withLock { $0 } }

    /// Reads the database setting `local_roots` when the environment states none; a login that may not read
    /// `ferry.settings` is told nothing more.
    static func load(from client: PostgresClient) async {
        guard environment == nil else { return }
        let value = try? await client.withConnection { connection -> String? in
            let rows = try connection.query("SELECT value FROM ferry.settings WHERE name = $1", ["local_roots"]).rows
            return try rows.first?.decode(String.self, column: "value")
        }
        load(setting: value ?? nil)
    }

    /// Keeps the database setting's value (nil: not set).
    static func load(setting value: String?) {
        database.withLock { $0 = value.flatMap { stated($0, origin: "the database setting local_roots") } }
    }

    static func stated(_ text: String, origin: String) -> Stated? {
        let directories = text.split(separator: ":").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .map { SafePath.normalize($0) ?? $0 }
        guard !directories.isEmpty else { return nil }
        return Stated(directories: directories, origin: origin, local: try? LocalRoots(directories: directories))
    }

    /// Refuses a request whose local `--to` is relative, naming the absolute path it would have meant here.
    static func checkAbsolute(_ request: JobRequest, line: Int?, currentDirectory: String) throws(ValidationIssue) {
        let local: Bool =
            switch request.kind {
            case .fetch: EndpointSyntax.scheme(of: request.to) == nil
            case .upload: EndpointSyntax.scheme(of: request.to) == nil && !request.to.isEmpty
            case .copy: false
            }
        let to = request.to
        guard local, !to.hasPrefix("/"), to.contains(where: { !$0.isWhitespace }) else { return }
        let meant = JobRequest.absolute(to, base: currentDirectory)
        throw ValidationIssue(
            line: line, field: line == nil ? "--to" : "to",
            problem: "\(to) is a relative path; the worker that runs the job does not know this shell's folder",
            fix: "give an absolute path on the workers' machines, such as \(meant)")
    }

    /// Refuses `spec` when its local path lies outside the stated roots.
    static func check(_ spec: JobSpec, line: Int?, roots: Stated? = current) throws(ValidationIssue) {
        guard let roots else { return }
        let local: (path: String, field: String, role: String)? =
            switch spec.kind {
            case .fetch: EndpointSyntax.scheme(of: spec.destination) == nil ? (spec.destination, "to", "destination") : nil
            case .upload: EndpointSyntax.scheme(of: spec.source) == nil ? (spec.source, "source", "source") : nil
            case .copy: nil
            }
        guard let local, !inside(local.path, roots: roots, role: local.role) else { return }
        let summary = roots.directories.joined(separator: ", ")
        throw ValidationIssue(
            line: line, field: local.field,
            problem: "\(local.path) is outside the workers' local roots (\(roots.origin): \(summary)); a worker would refuse the job",
            fix: "name a path inside \(summary), or run the workers with --local-root for that folder")
    }

    /// Whether `path` lies in a root: as a worker checks it when the folders exist here, else by its spelling.
    static func inside(_ path: String, roots: Stated, role: String) -> Bool {
        if let local = roots.local { return (try? local.check(path, role: role)) != nil }
        guard let normalized = SafePath.normalize(path) else { return false }
        return roots.directories.contains { root in
            root == "/" || normalized == root || normalized.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
    }
}
