import FerryCore

extension JobResult {
    /// The destination already held the same content, so nothing was moved: the job succeeds with no bytes,
    /// and its result says `"skipped": "unchanged"` (with `facts`: how it was known) for `ferry events` and
    /// `result->>'skipped'`.
    public static func unchanged(_ facts: [String: JSONValue]) -> JobResult {
        var details = facts
        details["skipped"] = .string("unchanged")
        return JobResult(bytes: 0, details: .object(details))
    }
}
