import FerryDevServer
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Testing

@testable import FerryWorker

/// The one listing a folder copy makes of a Dropbox destination (the dev server over loopback): which children's
/// files the folder lacks, compared case-insensitively; a folder not there yet lacks all of them; a folder too big
/// to read answers nothing. The dev server runs in process; the account is in a test database (its tokens refreshed
/// through the real `AccountTokenProvider`).
@Suite("Dropbox destination listing", .tags(.postgres))
struct DropboxDestinationListingTests {
    @Test("files the folder lacks are absent, case-insensitively; a missing folder lacks everything; past maxEntries nothing is answered")
    func absentFiles() async throws {
        try await PostgresWorker.withDevServer { server, _, _ in try await Self.absent(server) }
    }

    static func absent(_ server: DevServer) async throws {
        let db = try await TestDatabase.make("dbx_dest_listing")
        try server.seedFiles(account: "box", folder: "/Dest/sub", count: 3, size: 100)
        let store = db.store()
        defer { store.client.close() }
        let logger = Logger(label: "test")
        let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
        let base = try #require(server.baseURL)
        // `ferry account add box --provider dropbox` against the server.
        try await store.accounts.add(
            NewAccount(
                name: "box", provider: "dropbox", appKey: server.configuration.appKey,
                secrets: ["app_secret": server.configuration.appSecret], refreshToken: server.issueRefreshToken(account: "box"),
                apiURL: base, contentURL: base, authorizeURL: base),
            box: box, by: "test")
        let tokens = AccountTokenProvider(store: store, box: box, httpClient: .shared, actor: "test", logger: logger, registry: .standard)
        let caller = DropboxCaller(account: "box", tokens: tokens, logger: logger)

        let held = "dropbox:box:/Dest/sub/" + DropboxFetchTests.seededName(0)
        let otherCase = "dropbox:box:/DEST/SUB/" + DropboxFetchTests.seededName(1).uppercased()
        let new = "dropbox:box:/Dest/sub/new.jpg"
        let elsewhere = "dropbox:box:/Other/x.jpg"
        let listing = DropboxDestinationListing(caller: caller, folder: "/Dest/")
        #expect(await listing.absent(destinations: [held, otherCase, new, elsewhere], logger: logger) == [new])
        // The folder is read once per attempt: a second page's question is answered from the same listing.
        #expect(await listing.absent(destinations: [new], logger: logger) == [new])

        let missing = DropboxDestinationListing(caller: caller, folder: "/Nowhere/")
        let inMissing = ["dropbox:box:/Nowhere/a.jpg", "dropbox:box:/Nowhere/b/c.jpg"]
        #expect(await missing.absent(destinations: inMissing, logger: logger) == Set(inMissing))

        let small = DropboxDestinationListing(caller: caller, folder: "/Dest/", maxEntries: 2)
        #expect(await small.absent(destinations: [new], logger: logger).isEmpty, "a folder past maxEntries answers nothing")
    }
}
