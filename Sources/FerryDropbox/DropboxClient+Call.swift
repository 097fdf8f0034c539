extension DropboxClient {
    /// What the transport needs to know about one call: its name for logs, the error shape,
    /// and the secrets it carries.
    struct Call {
        var route: String
        /// `/oauth2/token`: errors use the RFC 6749 shape.
        var oauth = false
        /// Values scrubbed from anything taken from a response.
        var secrets: [String]
    }
}
