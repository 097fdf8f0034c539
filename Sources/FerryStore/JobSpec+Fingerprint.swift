import Crypto
import FerryCore

extension JobSpec {
    /// Keys of an upload's details that describe the file as it was at enqueue, not what was asked for.
    static let sourceFactKeys: Set<String> = ["size", "mtime_ns", "device", "inode"]

    /// A digest of what the caller asked for, kept with an idempotency key so that reusing the key for
    /// different work is refused. The time (`run_at`, often relative) and the file's state at enqueue are left
    /// out: the same command run again is the same request.
    ///
    /// A child a running job found (a listed file, a file of a walked tree: `details.parent` set) is the same work
    /// whichever run found it, so its parent and batch are left out too: a tree walked again by a later run of a
    /// schedule finds the child of an unchanged file enqueued already, under its key, and enqueues nothing.
    var argumentsFingerprint: String {
        let child = details["parent"] != nil
        var object: [String: JSONValue] = [
            "kind": .string(kind.rawValue), "source": .string(source), "destination": .string(destination),
            "queue": .string(queue), "priority": .int(priority), "max_attempts": .int(maxAttempts),
            "details": .object(details.filter { !Self.sourceFactKeys.contains($0.key) && !(child && $0.key == "parent") }),
        ]
        if let batch, !child { object["batch"] = .string(batch) }
        if let account { object["account"] = .string(account) }
        if let metadata { object["metadata"] = metadata }
        let digest = SHA256.hash(data: Array(JSONValue.object(object).jsonText.utf8))
        return digest.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
