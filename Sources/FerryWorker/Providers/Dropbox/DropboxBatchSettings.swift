/// How a worker gathers Dropbox commits into `upload_session/finish_batch_v2` calls.
///
/// Read from the environment of `ferry worker` (not flags: they are tuning knobs and a comparison switch):
/// `FERRY_DROPBOX_BATCH_WINDOW_MS` (default 50), `FERRY_DROPBOX_BATCH_MAX` (default 1000, Dropbox's limit), and
/// `FERRY_DROPBOX_COMMIT=single` to commit every file on its own as before batching existed.
public struct DropboxBatchSettings: Sendable, Equatable {
    /// How long the first entry of a batch waits for others at most.
    public var window: Duration
    /// Entries per `finish_batch_v2` call (1...1000).
    public var maxEntries: Int

    public init(window: Duration = .milliseconds(50), maxEntries: Int = 1000) {
        self.window = window
        self.maxEntries = min(1000, max(1, maxEntries))
    }

    /// The settings the environment asks for; nil when it turns batching off (`FERRY_DROPBOX_COMMIT=single`).
    /// Values that do not parse keep their defaults.
    public init?(environment: ProviderVariables) {
        if environment["FERRY_DROPBOX_COMMIT"] == "single" { return nil }
        self.init()
        if let text = environment["FERRY_DROPBOX_BATCH_WINDOW_MS"], let milliseconds = Int(text), (0...10_000).contains(milliseconds) {
            window = .milliseconds(milliseconds)
        }
        if let text = environment["FERRY_DROPBOX_BATCH_MAX"], let count = Int(text), (1...1000).contains(count) {
            maxEntries = count
        }
    }
}
