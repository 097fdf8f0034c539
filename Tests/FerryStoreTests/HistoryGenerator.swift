import Foundation

/// Random job histories for the fold property test: mostly plausible lives (claims, progress, retries, cancels,
/// requeues) with wrong versions, stale or odd leases, missing fields and impossible transitions mixed in.
/// Deterministic for a seed.
struct HistoryGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

    private enum ModelState { case none, queued, running, succeeded, failed, cancelled, discarded }

    /// One job's history of 1 to `maxEvents` events.
    mutating func history(maxEvents: Int = 14) -> [CandidateEvent] {
        let bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: next()) }
        let jobID = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        var events = [CandidateEvent]()
        // The generator's own guess of the job (it assumes plausible events are accepted).
        var model = ModelState.none
        var version = 0
        var lease = 0
        var cancelRequested = false
        let start = 1_700_000_000 + int(0...1_000_000)
        for step in 0..<int(1...maxEvents) {
            let plausible: [String] = switch model {
            case .none: ["enqueued"]
            case .queued: ["claimed", "claimed", "claimed", "cancelled"]
            case .running: ["progress", "progress", "retry_scheduled", "deferred", "released", "rescued", "cancel_requested",
                            "cancelled", "succeeded", "succeeded", "failed", "resolved"]
            case .succeeded: []
            case .failed: ["requeued", "discarded"]
            case .cancelled, .discarded: ["requeued"]
            }
            let all = ["enqueued", "claimed", "progress", "retry_scheduled", "deferred", "released", "rescued",
                       "cancel_requested", "cancelled", "succeeded", "failed", "requeued", "resolved", "discarded"]
            let wild = plausible.isEmpty || chance(12)
            let type = wild ? pick(all) : pick(plausible)
            var eventVersion = version + 1
            if chance(8) { eventVersion = int(1...version + 2) }
            var eventLease: String? = type == "claimed" ? "\(lease + 1)" : "\(lease)"
            var leaseOdd = false
            if chance(10) {
                leaseOdd = true
                eventLease = pick([nil, "null", "\(lease - 1)", "\(lease + 2)", "\"\(lease)\"", "\" \(type == "claimed" ? lease + 1 : lease) \"", "\"+\(lease)\""])
            }
            let data = payload(type, lease: eventLease)
            let micros = int(0...999_999)
            let at = Date(timeIntervalSince1970: Double(start + step * 37) + Double(micros) / 1e6)
            events.append(CandidateEvent(
                jobID: jobID, version: eventVersion, type: type, data: data.json,
                recordedAt: at.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))))
            // Guess the outcome to keep the next events mostly plausible.
            guard !wild, !leaseOdd, eventVersion == version + 1, !data.broken else { continue }
            version += 1
            switch type {
            case "enqueued": model = .queued
            case "claimed": model = .running; lease += 1
            case "retry_scheduled", "deferred", "released", "rescued": model = cancelRequested ? .cancelled : .queued
            case "cancel_requested": cancelRequested = true
            case "cancelled": model = .cancelled
            case "succeeded": model = .succeeded
            case "failed": model = .failed
            case "requeued": model = .queued; cancelRequested = false
            case "discarded": model = .discarded
            default: break
            }
        }
        return events
    }

    /// The event's data; `broken` when a field the database needs is missing.
    private mutating func payload(_ type: String, lease: String?) -> (json: String, broken: Bool) {
        var fields = [String]()
        var broken = false
        func add(_ key: String, _ value: String?) {
            if let value { fields.append("\"\(key)\": \(value)") }
        }
        func maybe(_ key: String, _ values: [String?]) {
            add(key, pick(values))
        }
        let times = ["\"2030-01-02T03:04:05Z\"", "\"2030-01-02T03:04:05.123456+02:00\"", "\"2031-06-01 10:00:00+00\"", "\"2030-01-02T03:04:05.5Z\""]
        let jsons = ["{\"id\": \"s1\", \"offset\": 8}", "null", "{}", "[1, 2]", "\"text\"", "{\"b\": 1, \"a\": [true, null]}"]
        var ints = [nil, "0", "500", "1000", "null", "\"42\"", "123456789012", "\" 7 \""]
        // Now and then a value no integer cast takes (22P02, 22003).
        if chance(4) { ints = ["\"x\"", "1.5", "99999999999999999999"] }
        let texts = [nil, "\"boom\"", "\"tab\\there\"", "\"line\\nbreak \\\\ \\\"q\\\"\"", "null", "\"ünï☃\"",
                     "\"ctl\\u0001 \\ud83d\\ude00 \\/\"", "42", "{\"nested\": [1, \"x\"]}", "true"]
        switch type {
        case "enqueued":
            var required = ["kind": "\"fetch\"", "queue": pick(["\"default\"", "\"slow\""]), "priority": chance(2) ? pick(["40000", "\"x\""]) : pick(["\(int(-3...5))", "\"7\"", "\" -2 \""]),
                            "max_attempts": "\(int(1...5))", "source": "\"https://example.com/\(int(0...999)).jpg\"",
                            "destination": "\"/srv/in/\""]
            if chance(2) {
                required.removeValue(forKey: pick(Array(required.keys).sorted()))
                broken = true
            }
            for key in required.keys.sorted() { add(key, required[key]) }
            maybe("batch", [nil, nil, "\"b1\"", "\"b2\""])
            maybe("account", [nil, nil, "\"acct\""])
            maybe("run_at", [nil, nil] + times)
            maybe("bytes_total", [nil, "1000", "\"77\"", "null", "\"x\""])
            maybe("spec", [nil, "{\"size\": 10, \"mtime\": \"x\"}", "{}"])
            maybe("metadata", [nil, "null", "{\"title\": \"T\\tab\"}"])
        case "claimed":
            add("lease", lease)
            maybe("worker", ["\"w1\"", "\"w 2\"", nil, "\"w\\\\3\""])
        case "progress":
            add("lease", lease)
            maybe("bytes_done", ints)
            maybe("bytes_total", ints)
            maybe("session", [nil, nil] + jsons)
        case "retry_scheduled", "deferred":
            add("lease", lease)
            add(type == "deferred" ? "reason" : "error", pick(texts))
            if chance(5) {
                broken = true
            } else {
                add("run_at", pick(times))
            }
        case "released":
            add("lease", lease)
        case "rescued", "failed":
            add("lease", lease)
            add(type == "failed" ? "error" : "reason", pick(texts))
        case "cancel_requested":
            maybe("requested_by", [nil, "\"chaos\""])
        case "cancelled":
            if chance(50) { add("lease", lease) }
            add("reason", pick(texts))
        case "succeeded":
            add("lease", lease)
            maybe("bytes_done", ints)
            maybe("bytes_total", ints)
            maybe("result", [nil] + jsons)
        case "requeued":
            // A retry with changed provider options carries the spec they make (the fold takes it as it is).
            maybe("by", [nil, "\"ops\""])
            maybe("options", [nil, "{\"mode\": \"overwrite\"}"])
            maybe("spec", [nil, nil, "{\"mode\": \"overwrite\", \"size\": 10}", "null", "{}", "{\"unresolved\": {\"options\": {\"t\": \"\\u00e9\\t\"}}}"])
        case "resolved":
            add("lease", lease)
            maybe("source", [nil, "\"https://example.com/settled.jpg\"", "null", "42", "\"ünï☃\""])
            maybe("destination", [nil, "\"/srv/settled/\"", "null"])
            maybe("account", [nil, "\"acct2\"", "null"])
            maybe("spec", [nil, "{\"k\": 1}", "null", "{}", "[1]"])
            maybe("bytes_total", ints)
        default:
            break
        }
        return ("{" + fields.joined(separator: ", ") + "}", broken)
    }
}
