import FerryWorker

extension ListingFlags {
    /// Lists one remote folder as these flags say, handing each page of entries to `page`; a failure is reported
    /// as every listing command reports it (``runListing(_:)``). `recursiveByDefault` is the command's default.
    func eachPage(of remote: String, recursiveByDefault: Bool, _ page: ([RemoteEntry]) throws -> Void) async throws {
        try await runListing {
            let options = try self.options(recursiveByDefault: recursiveByDefault)
            try await ListingSession.with([remote], connection: connection) { session in
                _ = try await session.listings[0].run(options: options, logger: session.logger) { try page($0) }
            }
        }
    }
}
