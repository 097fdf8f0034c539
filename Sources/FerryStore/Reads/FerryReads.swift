import Logging
import Postgres

/// The store's read side: what `ferry status`, `ferry wait`, `FerryClient`, search and the dashboard read (the
/// views over the projection, never the event log's writes). Writes and claims stay on `FerryStore`; a store's
/// `reads` shares its connections. Methods are safe to call concurrently.
public struct FerryReads: Sendable {
    public let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Which jobs a status query covers (the commands take the same filter).
    public typealias JobFilter = FerryStore.JobFilter

    static func translate(_ error: any Error) -> any Error { FerryStore.translate(error) }

    /// A LIKE pattern matching `text` anywhere (the job filter's own, `FerryStore.containsPattern`).
    static func containsPattern(_ text: String) -> String { FerryStore.containsPattern(text) }
}

extension FerryStore {
    /// The read side on this store's connections.
    public var reads: FerryReads { FerryReads(client: client, logger: logger) }
}
