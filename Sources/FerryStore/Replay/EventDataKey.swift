/// The keys of an event's data that the fold reads.
enum EventDataKey: Int, CaseIterable {
    case lease, worker, error, reason, bytesDone, bytesTotal, session, result
    case kind, queue, batch, priority, maxAttempts, account, source, destination, key, spec, metadata

    var literal: StaticString {
        switch self {
        case .lease: "lease"
        case .worker: "worker"
        case .error: "error"
        case .reason: "reason"
        case .bytesDone: "bytes_done"
        case .bytesTotal: "bytes_total"
        case .session: "session"
        case .result: "result"
        case .kind: "kind"
        case .queue: "queue"
        case .batch: "batch"
        case .priority: "priority"
        case .maxAttempts: "max_attempts"
        case .account: "account"
        case .source: "source"
        case .destination: "destination"
        case .key: "key"
        case .spec: "spec"
        case .metadata: "metadata"
        }
    }

    /// Keys by length, so a key of the data is compared with at most a few candidates.
    static let byLength: [[EventDataKey]] = {
        var table = [[EventDataKey]](repeating: [], count: 16)
        for key in allCases { table[key.literal.utf8CodeUnitCount].append(key) }
        return table
    }()
}
