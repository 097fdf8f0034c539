import FerryTestSupport
import Foundation

/// A producer as a script would be one during a failover: one `ferry enqueue upload` per file, in a loop, each
/// with `--wait-for-database`, logging every job id it got back and how long each call took.
actor FailoverProducer {
    /// One `ferry enqueue` call.
    struct Call: Sendable {
        let file: String
        /// The id printed on success (an acknowledged enqueue), else nil.
        let id: String?
        let status: Int32
        let started: Date
        let seconds: Double
        /// It said `waiting for PostgreSQL`: it met the database unreachable or read-only and rode it out.
        let waited: Bool
        let stderr: String
    }

    let url: String
    let files: [String]
    let destination: String
    let batch: String
    private(set) var calls = [Call]()
    private var stopRequested = false

    init(url: String, files: [String], destination: String, batch: String) {
        self.url = url
        self.files = files
        self.destination = destination
        self.batch = batch
    }

    /// Enqueues the files one by one until ``stop()``, cancellation, or the last file.
    func run() async {
        for file in files {
            if stopRequested || Task.isCancelled { return }
            let started = Date()
            var (status, stdout, stderr): (Int32, String, String) = (-1, "", "")
            do {
                let result = try await FerryProcess.run(
                    ["enqueue", "upload", file, "--to", destination, "--batch", batch, "--wait-for-database", "60s"], databaseURL: url)
                (status, stdout, stderr) = (result.status, result.stdout, result.stderr)
            } catch {
                stderr = "\(error)"
            }
            let id = stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            calls.append(Call(
                file: file, id: status == 0 && UUID(uuidString: id) != nil ? id : nil, status: status,
                started: started, seconds: Date().timeIntervalSince(started),
                waited: stderr.contains("waiting for PostgreSQL"), stderr: stderr))
            // A script's pace, not a benchmark's: leaves the two cores to the workers and the formation.
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() { stopRequested = true }

    /// Calls that got an id back.
    var acknowledged: [Call] { calls.filter { $0.id != nil } }

    /// Acknowledged calls that started after `date`.
    func acknowledged(after date: Date) -> Int { calls.filter { $0.id != nil && $0.started > date }.count }
}
