import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Search across batches (migration 0032's indexes): by id prefix, path text, error code and metadata.
@Suite("search", .tags(.postgres))
struct SearchTests {
    @Test("the search box: ids and their starts, error:CODE, error:TEXT, KEY=VALUE, path text, plain text; what cannot be searched says why")
    func parsing() throws {
        #expect(try JobSearch(parsing: "01939E5A-7C") == .idPrefix("01939e5a7c"))
        #expect(try JobSearch(parsing: " id:0193 ") == .idPrefix("0193"))
        #expect(try JobSearch(parsing: "error:http_not_found") == .errorCode("http_not_found"))
        #expect(try JobSearch(parsing: "Code:Disk_Full") == .errorCode("disk_full"))
        #expect(try JobSearch(parsing: "album=trip 2026") == .metadata(key: "album", value: "trip 2026"))
        #expect(try JobSearch(parsing: "IMG_1234.jpg") == .text("IMG_1234.jpg"))
        #expect(try JobSearch(parsing: "/photos/a=b.jpg") == .text("/photos/a=b.jpg"), "a key has no slash")
        #expect(try JobSearch(parsing: "path:x=y") == .path("x=y"))
        #expect(try JobSearch(parsing: "2026") == .text("2026"), "digits alone are text, not an id")
        #expect(try JobSearch(parsing: "account is full") == .text("account is full"))
        #expect(try JobSearch(parsing: "error:Connection refused") == .errorText("Connection refused"))
        #expect(try JobSearch(parsing: "error: disk_full ") == .errorCode("disk_full"))
        let long = String(repeating: "a", count: JobSearch.maximumLength + 1)
        for (text, code) in [("", JobSearchError.Code.empty), ("ab", .tooShort), ("id:xyz", .badJobID), ("code:Not A Code", .badErrorCode),
                             ("error:a?", .tooShort), (long, .tooLong), ("error:" + long, .tooLong)] {
            #expect(throws: JobSearchError.self) { try JobSearch(parsing: text) }
            do { _ = try JobSearch(parsing: text) } catch { #expect(error.code == code, "\(text)") }
        }
        #expect(FerryReads.uuid("0193", padding: "0") == "01930000-0000-0000-0000-000000000000")
        #expect(FerryReads.uuid("0193", padding: "f") == "0193ffff-ffff-ffff-ffff-ffffffffffff")
    }

    @Test("each kind finds its jobs across batches, newest first, page by page; nothing else")
    func finds() async throws {
        let db = try await TestDatabase.make("search")
        let store = db.store()
        defer { store.client.close() }
        func spec(_ batch: String?, _ source: String, metadata: JSONValue? = nil) -> JobSpec {
            JobSpec(jobID: UUIDv7.make(), kind: .fetch, source: source, destination: "/srv/in/", account: nil, queue: "sq",
                    batch: batch, priority: 0, maxAttempts: 1, runAt: nil, idempotencyKey: nil, metadata: metadata,
                    bytesTotal: 10, details: [:])
        }
        var specs = (0..<60).map { spec($0 % 2 == 0 ? "north" : nil, "https://example.com/trip/IMG_\(1000 + $0).jpg") }
        specs += [spec("south", "https://example.com/other/cat.png", metadata: .object(["album": .string("pets"), "likes": .int(7)])),
                  spec("south", "https://example.com/other/dog.png", metadata: .object(["album": .string("pets 2")]))]
        let ids = try await store.enqueue(specs).map(\.jobID)
        let claimed = try await store.claim(worker: "w", queues: ["sq"], limit: 3)
        _ = try await store.record(claimed.map { .failed($0, error: "http_not_found: GET \($0.jobID) answered 404") })

        // Path text anywhere, case-insensitive, across batches and loose jobs: 60 photos, two pages of 50 and 10,
        // newest first (PostgreSQL's uuid order: by the text).
        let photos = ids[0..<60].sorted { $0.uuidString.lowercased() > $1.uuidString.lowercased() }
        let first = try await store.reads.searchJobs(.path("img_10"))
        #expect(first.count == 50 && first.map(\.jobID) == Array(photos.prefix(50)))
        let second = try await store.reads.searchJobs(.path("img_10"), before: first.last!.jobID)
        #expect(second.map(\.jobID) == Array(photos.suffix(10)))
        #expect(try await store.reads.searchJobs(.path("IMG_1007.JPG")).map(\.jobID) == [ids[7]])
        #expect(try await store.reads.searchJobs(.path("50%")).isEmpty, "% is literal")
        #expect(try await store.reads.searchJobs(.path("/srv/in")).count == 50, "the destination too")

        #expect(Set(try await store.reads.searchJobs(.errorCode("http_not_found")).map(\.jobID)) == Set(claimed.map(\.jobID)))
        #expect(try await store.reads.searchJobs(.errorCode("http")).isEmpty, "the whole code, not its start")

        #expect(try await store.reads.searchJobs(.metadata(key: "album", value: "pets")).map(\.jobID) == [ids[60]])
        #expect(try await store.reads.searchJobs(.metadata(key: "likes", value: "7")).map(\.jobID) == [ids[60]], "numbers too")
        #expect(try await store.reads.searchJobs(.metadata(key: "album", value: "pet")).isEmpty, "values whole")

        // Error text, as typed: in the last error of the failed jobs (and in plain text with path matches merged).
        #expect(Set(try await store.reads.searchJobs(.errorText("ANSWERED 404")).map(\.jobID)) == Set(claimed.map(\.jobID)))
        #expect(try await store.reads.searchJobs(.errorText("img_10")).isEmpty, "error text only, not paths")
        let failed = claimed.map(\.jobID).sorted { $0.uuidString.lowercased() > $1.uuidString.lowercased() }
        let byError = try await store.reads.searchJobs(.text(failed[0].uuidString.lowercased() + " answered"))
        #expect(byError.map(\.jobID) == [failed[0]])
        let mixed = try await store.reads.searchJobs(.text("404"))
        #expect(Set(mixed.map(\.jobID)) == Set(claimed.map(\.jobID)), "no path has 404: the failures")
        #expect(try await store.reads.searchJobs(.errorText("answered 404"), before: failed[0]).map(\.jobID) == Array(failed.dropFirst()))
        let both = try await store.reads.searchJobs(.text("img_10"))
        #expect(both.count == 50 && both.map(\.jobID) == Array(photos.prefix(50)), "paths and errors merged, newest first, one page")
        let rest = try await store.reads.searchJobs(.text("img_10"), before: both.last!.jobID)
        #expect(rest.map(\.jobID) == Array(photos.suffix(10)))
        #expect(try await store.reads.searchJobs(.errorText("%")).isEmpty, "% is literal")
        #expect(try await store.reads.searchJobs(.text("'; DROP TABLE ferry.jobs; --")).isEmpty, "bound, never spliced")

        let id = ids[61].uuidString.lowercased()
        #expect(try await store.reads.searchJobs(try JobSearch(parsing: id)).map(\.jobID) == [ids[61]])
        #expect(try await store.reads.searchJobs(try JobSearch(parsing: String(id.prefix(23)))).contains { $0.jobID == ids[61] })
    }

    @Test("the search terms follow the projection: made with the job, changed with its endpoints, gone with it, rebuilt with it; claims and successes never write them")
    func termsFollowJobs() async throws {
        let db = try await TestDatabase.make("search_terms")
        let store = db.store()
        defer { store.client.close() }
        var tagged = StoreFixtures.fetchSpec(batch: "terms")
        tagged.metadata = .object(["album": .string("terms")])
        let ids = try await store.enqueue([tagged, StoreFixtures.fetchSpec(batch: "terms")]).map(\.jobID)
        /// (path, metadata, the row version's xmin) of a job's terms; nil when it has none.
        func terms(_ id: UUID) async throws -> (path: String, metadata: String?, xmin: String)? {
            try await db.query(
                "SELECT path, metadata::text, xmin::text FROM ferry.job_search_terms WHERE job_id = $1", [id]
            ).rows.first.map { (try $0.decode(String.self, at: 0), try $0.decode(String?.self, at: 1), try $0.decode(String.self, at: 2)) }
        }
        let made = try #require(try await terms(ids[0]))
        let endpoints = try await db.query("SELECT source || ' ' || destination FROM ferry.jobs WHERE job_id = $1", [ids[0]])
        #expect(made.path == (try endpoints.rows[0].decode(String.self, at: 0)))
        #expect(made.metadata == #"{"album": "terms"}"#)
        #expect(try await terms(ids[1])?.metadata == nil)

        // A claim and its success change the job's row three times over; the terms' row is the one written at
        // enqueue (the same xmin): no index entry is added for an unchanged path.
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 2)
        #expect(claimed.count == 2)
        _ = try await store.record(claimed.filter { $0.jobID == ids[0] }.map { .succeeded($0, bytes: 1) })
        #expect(try await terms(ids[0])?.xmin == made.xmin)

        // A resolved event settles other endpoints: the terms follow, and search finds the job by them.
        let other = try #require(claimed.first { $0.jobID == ids[1] })
        _ = try await store.record([
            JobOutcome(jobID: other.jobID, lease: other.lease, type: .resolved, data: ["source": .string("https://example.com/settled/elsewhere.jpg")])
        ])
        #expect(try await terms(ids[1])?.path.hasPrefix("https://example.com/settled/elsewhere.jpg ") == true)
        #expect(try await store.reads.searchJobs(.path("settled/elsewhere")).map(\.jobID) == [ids[1]])
        #expect(try await store.reads.searchJobs(.metadata(key: "album", value: "terms")).map(\.jobID) == [ids[0]])

        // Rebuilt from the log (TRUNCATE, COPY): the same terms; a job deleted from the projection takes its terms.
        #expect(try await store.projection.rebuild() == 2)
        let rebuilt = try await terms(ids[0])
        #expect(rebuilt?.path == made.path && rebuilt?.metadata == made.metadata)
        #expect(try await terms(ids[1])?.path.hasPrefix("https://example.com/settled/elsewhere.jpg ") == true)
        #expect(try await store.projection.searchTermDifferences().isEmpty)
        try await db.query("DELETE FROM ferry.jobs WHERE job_id = $1", [ids[0]])
        #expect(try await terms(ids[0]) == nil)
        #expect(try await db.query("SELECT count(*) FROM ferry.job_search_terms").rows[0].decode(Int.self, at: 0) == 1)

        // Verify finds terms edited, lost or left over by hand.
        let stray = UUIDv7.make()
        try await db.query("UPDATE ferry.job_search_terms SET path = 'elsewhere' WHERE job_id = $1", [ids[1]])
        try await db.query("INSERT INTO ferry.job_search_terms (job_id, path) VALUES ($1, 'nobody')", [stray])
        #expect(Set(try await store.projection.searchTermDifferences().map { "\($0.jobID) \($0.problem)" })
            == ["\(ids[1]) stale", "\(stray) orphaned"])
        try await db.query("DELETE FROM ferry.job_search_terms WHERE job_id = $1", [ids[1]])
        #expect(Set(try await store.projection.searchTermDifferences().map { "\($0.jobID) \($0.problem)" })
            == ["\(ids[1]) missing", "\(stray) orphaned"])
    }
}
