import FerryTestSupport
import Foundation
import Testing

/// Every irreversible step in the worker's sources (a commit, a request that stores a file, a rename over a
/// destination, a sync's deletion) is fenced by the lease: a check (`ensureLease`, `holdsLease`, a `fence()` that
/// runs one) within the few lines before the call. A new commit path that forgets it fails here, naming itself.
@Suite(.tags(.fast))
struct EffectFenceTests {
    /// The calls that cannot be taken back once the provider or the file system has them.
    static let irreversible = [
        "client.uploadFile(", "client.uploadSessionFinish(", "client.uploadSessionFinishBatch(", "client.putObject(",
        "client.completeMultipartUpload(", "client.multipartUpload(", "client.uploadChunk(", ".renameChild(", "remover.remove(",
        "client.uploadSmall(", "client.uploadRange(",
    ]
    static let checks = ["ensureLease(", "holdsLease(", "fence()"]
    /// How far above the call the check may be (a metrics line, a comment, the request's body in between).
    static let window = 10

    @Test("every commit, finalizing request, rename into place and deletion has a lease check right before it")
    func everyEffectIsFenced() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources/FerryWorker")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var fenced = [String]()
        var unfenced = [String]()
        for file in files.sorted() {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.hasPrefix("//"), !trimmed.contains("func "), Self.irreversible.contains(where: { line.contains($0) }) else { continue }
                let before = lines[max(0, index - Self.window)..<index]
                let site = "\(file):\(index + 1): \(trimmed)"
                if before.contains(where: { earlier in Self.checks.contains { earlier.contains($0) } }) {
                    fenced.append(site)
                } else {
                    unfenced.append(site)
                }
            }
        }
        #expect(unfenced.isEmpty, "irreversible steps without a lease check right before them:\n\(unfenced.joined(separator: "\n"))")
        // Dropbox (upload, finish: one call serves plain and concurrent sessions, batch), S3 (put, complete), Drive
        // (multipart, last chunk), the two renames and the sync's deletions: fewer means the scan no longer finds them.
        #expect(fenced.count >= 13, "\(fenced.joined(separator: "\n"))")
    }
}
