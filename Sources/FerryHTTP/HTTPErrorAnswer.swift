import FerryCore

/// The parts of a non-2xx answer that every service's error mapping reads: the body as text and as JSON (when it
/// is), the `Retry-After` wait, and a token endpoint's RFC 6749 error.
public struct HTTPErrorAnswer: Sendable {
    /// The body as text (invalid UTF-8 repaired).
    public var text: String
    /// The body as JSON, `nil` when it is not.
    public var json: JSONValue?
    /// Seconds from the `Retry-After` header (either form), `nil` without a usable one.
    public var retryAfter: Double?

    /// Reads `body` and the `Retry-After` header's value.
    public init(body: [UInt8], retryAfterHeader: String?) {
        text = String(decoding: body, as: UTF8.self)
        json = try? JSONValue.parse(text)
        retryAfter = HTTPRetryAfter.seconds(retryAfterHeader)
    }

    /// A token endpoint's error (`{"error": "invalid_grant", "error_description": …}`): the `error` name and a
    /// summary (`name: description`, the description cut by `trimDescription`); `nil` when the body has no string
    /// `error`.
    public func oauthError(trimDescription: (String) -> String = { $0 }) -> (name: String, summary: String)? {
        guard let name = json?["error"]?.stringValue else { return nil }
        guard let detail = json?["error_description"]?.stringValue else { return (name, name) }
        return (name, name + ": " + trimDescription(detail))
    }
}
