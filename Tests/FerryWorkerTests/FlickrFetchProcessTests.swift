import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What only `ferry` processes show of Flickr fetches: a worker killed mid-listing (the next resumes at the next
/// page) and `ferry account add` refusing a wrong key. The rest runs in process (`FlickrFetchTests`).
@Suite("Flickr fetches across processes", .tags(.postgres, .process))
struct FlickrFetchProcessTests {
    @Test("kill -9 during the listing: the next attempt resumes at the next page, and no photo is enqueued twice")
    func listingResumesAfterKill() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("flickr_resume")
        let target = try temporaryFolder("flickr-resume")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let photos = try await FlickrFetchTests.seedUser(server, "99@N09", count: 2000)
        try await FlickrFetchTests.addAccount("flickr", key: FlickrFetchTests.devKey, server: server, db: db)
        // Slow pages, so that the kill lands after the first page's commit and before the last.
        // Four pages of 8 s each: after page 2 is committed, the listing runs 16 s more, room for a test on a loaded
        // machine to act (4 s pages once left it too little: the listing finished before the kill).
        try await server.setFaults(["latency_milliseconds": .int(8000), "routes": .array([.string("flickr/rest")])])
        let listing = try await FlickrFetchTests.enqueue(db, ["flickr:99@N09", "--to", target + "/", "--size", "s", "--batch", "resume"])

        let victim = try TestWorker.transfers(db, name: "flickr-victim", ["--concurrency", "2"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(50), "the first page to be committed") {
            try await count(
                db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND (session->>'page')::int >= 2", [listing]) == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state <> 'succeeded'", [listing]) == 1,
                "killed mid-listing")
        _ = try await server.request("POST", "/__dev/reset-stats")
        try await server.setFaults([:])

        let survivor = try TestWorker.transfers(db, name: "flickr-survivor", ["--concurrency", "8"])
        try await eventually(timeout: .seconds(600), interval: .milliseconds(500), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "resume")
        }
        try await URLFetchTests.stop([survivor])

        // The victim's own request for page 2 may still be answered after the kill (the server does not know the
        // client is gone), so the survivor's pages are: 2, 3, and never 1.
        guard case .array(let listed)? = try await server.stats()["flickr_pages_listed"] else {
            Issue.record("no pages in the statistics")
            return
        }
        let pages = listed.compactMap(\.intValue)
        // Listed after the kill: never page 1 again, and the last page once (the victim's in-flight request may land too).
        #expect(!pages.contains(1) && pages.contains(4), "resumed after page 1: \(pages)")
        #expect(survivor.log.contains("resuming Flickr listing"))
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'resume' AND source LIKE 'flickr:%/photo/%'") == 2000)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state <> 'succeeded'") == 0)
        #expect(FlickrFetchTests.tree(target) == photos.map { "\($0.id)_s.jpg" }.sorted(), "every photo once, no temporary files")
    }

    @Test("ferry account add refuses a wrong API key and an endpoint that is not Flickr's, never showing the key")
    func accountAddRefusesWrongKey() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("flickr_key_cli")
        let wrongKey = "0123456789abcdef0123456789abcdef"
        // Checked at account add (flickr.test.echo): a wrong key, or an endpoint that is not Flickr's, is refused.
        let refused = try await FerryProcess.run(
            ["account", "add", "flickr", "--provider", "flickr", "--api-key-file", "-", "--api-url", server.baseURL + "/services/rest/"],
            databaseURL: db.url, stdin: wrongKey + "\n", environment: DropboxAccounts.environment)
        #expect(refused.status != 0 && refused.stderr.contains("Flickr refused the API key") && !refused.stderr.contains(wrongKey), "\(refused.stderr)")
        let elsewhere = try await FerryProcess.run(
            ["account", "add", "flickr", "--provider", "flickr", "--api-key-file", "-", "--api-url", server.baseURL + "/__dev/health"],
            databaseURL: db.url, stdin: FlickrFetchTests.devKey + "\n", environment: DropboxAccounts.environment)
        #expect(elsewhere.status != 0 && elsewhere.stderr.contains("check --api-url"), "\(elsewhere.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.accounts") == 0, "nothing added")
    }
}
