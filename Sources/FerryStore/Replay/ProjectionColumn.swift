/// The columns of `ferry.jobs`, in table order: what a replay compares, reports and writes.
enum ProjectionColumn: Int, CaseIterable {
    case jobID, version, kind, queue, batch, priority, state, attempt, maxAttempts, lease, worker, account, source
    case destination, idempotencyKey, spec, metadata, runAt, cancelRequested, bytesDone, bytesTotal, session
    case lastError, result, enqueuedAt, startedAt, finishedAt, updatedAt

    /// How a value is shown in a report: as `to_jsonb` of the row showed it before, so reports read the same.
    enum Display {
        case string, number, boolean, json
    }

    var name: String {
        switch self {
        case .jobID: "job_id"
        case .version: "version"
        case .kind: "kind"
        case .queue: "queue"
        case .batch: "batch"
        case .priority: "priority"
        case .state: "state"
        case .attempt: "attempt"
        case .maxAttempts: "max_attempts"
        case .lease: "lease"
        case .worker: "worker"
        case .account: "account"
        case .source: "source"
        case .destination: "destination"
        case .idempotencyKey: "idempotency_key"
        case .spec: "spec"
        case .metadata: "metadata"
        case .runAt: "run_at"
        case .cancelRequested: "cancel_requested"
        case .bytesDone: "bytes_done"
        case .bytesTotal: "bytes_total"
        case .session: "session"
        case .lastError: "last_error"
        case .result: "result"
        case .enqueuedAt: "enqueued_at"
        case .startedAt: "started_at"
        case .finishedAt: "finished_at"
        case .updatedAt: "updated_at"
        }
    }

    var display: Display {
        switch self {
        case .version, .priority, .attempt, .maxAttempts, .lease, .bytesDone, .bytesTotal: .number
        case .cancelRequested: .boolean
        case .spec, .metadata, .session, .result: .json
        default: .string
        }
    }

    /// The select list of a `ferry.jobs` COPY, in this order.
    static let selectList = allCases.map(\.name).joined(separator: ", ")

    /// A value (unescaped COPY text, `nil` for NULL) as a report shows it.
    func render(_ value: String?) -> String {
        guard let value else { return "null" }
        switch display {
        case .number, .json: return value
        case .boolean: return value == "t" ? "true" : "false"
        case .string:
            var quoted = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": quoted += "\\\""
                case "\\": quoted += "\\\\"
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                case "\r": quoted += "\\r"
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "\""
        }
    }
}
