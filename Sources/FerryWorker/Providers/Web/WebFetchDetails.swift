/// The details of a URL fetch.
struct WebFetchDetails: Codable, Sendable, Equatable {
    /// The folder the download must stay inside; jobs from before it was recorded use the target's folder.
    var root: String?
    /// Expected SHA-256 (hex, lowercase).
    var sha256: String?
}
