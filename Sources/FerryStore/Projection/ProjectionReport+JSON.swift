import FerryCore

extension ProjectionReport {
    /// The report for scripts (`ferry projection verify --json`).
    public var json: JSONValue {
        .object([
            "clean": .bool(isClean), "jobs_checked": .int(Int64(jobsChecked)), "events_replayed": .int(Int64(eventsReplayed)),
            "scope": .string(scope.summary), "last_position": lastPosition.map(JSONValue.int) ?? .null,
            "truncated": .bool(truncated),
            "differences": .array(differences.map { difference in
                var object: [String: JSONValue] = ["job_id": .string(difference.jobID.uuidString.lowercased())]
                switch difference.kind {
                case .missingFromProjection: object["problem"] = .string("missing_from_projection")
                case .missingEvents: object["problem"] = .string("missing_events")
                case .refused(let version, let type, let sqlState, let message):
                    object["problem"] = .string("refused_by_fold")
                    object["version"] = .int(version)
                    object["type"] = .string(type)
                    object["sqlstate"] = .string(sqlState)
                    object["message"] = .string(message)
                case .columns(let columns):
                    object["problem"] = .string("columns_differ")
                    object["columns"] = .array(columns.map {
                        .object(["name": .string($0.name), "stored": .string($0.stored), "replayed": .string($0.replayed)])
                    })
                }
                return .object(object)
            }),
        ])
    }
}
