import FerryCore
import FerryStore
import FerryWorker
import Foundation
import Logging
import Postgres

extension WorkerCommand {
    /// Compares this worker's roots with what producers are told of the fleet's (the database setting
    /// `local_roots`, see `ProducerLocalRoots`), and says at start where the two disagree: a root producers do not
    /// know is one whose jobs they refuse at enqueue; a folder they accept that this worker does not hold is one
    /// whose jobs fail here with outside_local_roots. A setting nobody wrote is said once, with how to write it.
    static func compareFleetRoots(_ roots: LocalRoots, store: FerryStore, logger: Logger) async {
        guard !roots.isUnconfined, !roots.roots.isEmpty else { return }
        let value = try? await store.client.withConnection { connection -> String? in
            let rows = try connection.query("SELECT value FROM ferry.settings WHERE name = $1", ["local_roots"]).rows
            return try rows.first?.decode(String.self, column: "value")
        }
        let mine = roots.roots.map(\.spelled)
        guard let text = value ?? nil else {
            logger.info(
                "producers are not told the workers' local roots; to have ferry enqueue refuse paths outside them before a worker does, the owner sets them",
                metadata: ["sql": "INSERT INTO ferry.settings (name, value) VALUES ('local_roots', '\(mine.joined(separator: ":"))')"])
            return
        }
        let fleet = text.split(separator: ":").map { SafePath.normalize(String($0)) ?? String($0) }.filter { !$0.isEmpty }
        let (unknown, missing) = disagreement(mine: mine, fleet: fleet)
        if !unknown.isEmpty {
            logger.warning(
                "local roots producers do not know: ferry enqueue refuses jobs for them (add them to the database setting local_roots)",
                metadata: ["roots": "\(unknown.joined(separator: ", "))", "local_roots": "\(text)"])
        }
        if !missing.isEmpty {
            logger.warning(
                "producers accept jobs for folders this worker does not hold: they fail here with outside_local_roots (give this worker --local-root for them, or narrow local_roots)",
                metadata: ["folders": "\(missing.joined(separator: ", "))", "roots": "\(mine.joined(separator: ", "))"])
        }
    }

    /// This worker's roots no fleet root holds, and the fleet's roots no root of this worker holds (by spelling).
    static func disagreement(mine: [String], fleet: [String]) -> (unknown: [String], missing: [String]) {
        func holds(_ root: String, _ path: String) -> Bool {
            root == "/" || path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
        let unknown = mine.filter { path in !fleet.contains { holds($0, path) } }
        let missing = fleet.filter { path in !mine.contains { holds($0, path) } }
        return (unknown, missing)
    }
}
