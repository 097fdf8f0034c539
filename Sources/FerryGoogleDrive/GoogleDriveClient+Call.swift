extension GoogleDriveClient {
    /// What the transport needs to know about one call: its name for logs, the error shape, and the secrets it
    /// carries.
    struct Call {
        var route: String
        /// The token endpoint: errors use the RFC 6749 shape.
        var oauth = false
        /// A resumable session URI: 404 and 410 mean the session is gone.
        var session = false
        /// Values scrubbed from anything taken from a response.
        var secrets: [String]
        /// The HTTP layer's own logs stay off: its trace lines show response headers, and a session's `Location` is a
        /// secret.
        var quietTransport = false
    }
}
