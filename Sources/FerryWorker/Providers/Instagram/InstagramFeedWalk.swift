import FerryCore
import FerryStore

/// Where a feed listing is, as its session records it after each page: the next page's cursor, how many pages and
/// posts were listed, how many files were left out (already there, or ids unfit for file names), and whether the
/// last page is done (a resumed listing that had finished lists nothing again).
struct InstagramFeedWalk: Sendable {
    var after: String?
    var pages: Int64 = 0
    var posts: Int64 = 0
    var unchanged: Int64 = 0
    var skipped = 0
    var finished = false

    init(session: JSONValue?) {
        after = session?["after"]?.stringValue
        pages = session?["pages"]?.intValue ?? 0
        posts = session?["posts"]?.intValue ?? 0
        unchanged = session?["unchanged"]?.intValue ?? 0
        skipped = Int(session?["skipped"]?.intValue ?? 0)
        finished = session?["finished"]?.boolValue ?? false
    }

    /// Moves past a page of which `listed` posts were taken.
    mutating func advance(listed: Int, after next: String?, limit: Int64?) {
        pages += 1
        posts += Int64(listed)
        after = next
        finished = next == nil || limit.map { posts >= $0 } == true
    }

    var session: JSONValue {
        .object([
            "after": after.map(JSONValue.string) ?? .null, "pages": .int(pages), "posts": .int(posts),
            "unchanged": .int(unchanged), "skipped": .int(Int64(skipped)), "finished": .bool(finished),
        ])
    }

    var result: JobResult {
        JobResult(
            bytes: 0,
            details: .object([
                "posts": .int(posts), "pages": .int(pages), "unchanged": .int(unchanged), "skipped": .int(Int64(skipped)),
            ]))
    }
}
