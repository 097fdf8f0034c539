import FerryCore
import FerryHTTP
import NIOHTTP1

/// Mapping Dropbox's HTTP error answers onto ``DropboxError``.
extension DropboxError {
    /// Builds the error for a non-2xx answer. `oauth` selects the token endpoint's RFC 6749 shape
    /// (`{"error": "invalid_grant", "error_description": ...}`); `secrets` are scrubbed from any
    /// text taken from the body.
    static func fromResponse(
        status: Int, headers: HTTPHeaders, body: [UInt8], oauth: Bool, secrets: [String]
    ) -> DropboxError {
        let text = String(decoding: body, as: UTF8.self)
        let json = try? JSONValue.parse(text)
        let headerRetryAfter = headers.first(name: "Retry-After").flatMap { Double($0.trimmingSpaces) }
        func safe(_ summary: String) -> String { Self.safe(summary, secrets: secrets) }

        if oauth, let json, let name = json["error"]?.stringValue {
            let code: Code
            switch name {
            case "invalid_grant": code = .invalidGrant
            case "invalid_client": code = .invalidClient
            default: code = status >= 500 ? .serverError : .badRequest
            }
            var summary = name
            if let detail = json["error_description"]?.stringValue { summary += ": " + detail }
            return DropboxError(code: code, httpStatus: status, tags: [name], error: json["error"], retryAfter: headerRetryAfter, summary: safe(summary))
        }

        let errorObject = json?["error"]
        let tags = tagPath(errorObject)
        let jsonSummary = json?["error_summary"]?.stringValue ?? tags.joined(separator: "/")
        switch status {
        case 400:
            return DropboxError(code: .badRequest, httpStatus: status, error: errorObject, summary: safe(text))
        case 401:
            guard json != nil else {
                return DropboxError(code: .authError, httpStatus: status, summary: safe(text))
            }
            let code: Code = switch tags.first {
            case "expired_access_token": .expiredAccessToken
            case "invalid_access_token": .invalidAccessToken
            default: .authError
            }
            return DropboxError(code: code, httpStatus: status, tags: tags, error: errorObject, summary: safe(jsonSummary))
        case 403:
            return DropboxError(code: .accessError, httpStatus: status, tags: tags, error: errorObject, summary: safe(json == nil ? text : jsonSummary))
        case 409:
            guard let errorObject else {
                return DropboxError(code: .invalidResponse, httpStatus: status, summary: "route error without a JSON error object")
            }
            let contention = tags.contains("too_many_write_operations")
            return DropboxError(
                code: contention ? .tooManyWriteOperations : .pathError, httpStatus: status, tags: tags, error: errorObject,
                retryAfter: contention ? bodyRetryAfter(json) ?? headerRetryAfter : nil, summary: safe(jsonSummary))
        case 429:
            // RateLimitError: {"reason": {".tag": "too_many_requests"}, "retry_after": 300}; may also be plain text.
            return DropboxError(
                code: .rateLimited, httpStatus: status, tags: tags, error: errorObject,
                retryAfter: bodyRetryAfter(json) ?? headerRetryAfter, summary: safe(json == nil ? text : jsonSummary))
        case 500...599:
            return DropboxError(code: .serverError, httpStatus: status, tags: tags, error: errorObject,
                                retryAfter: headerRetryAfter, summary: safe(text))
        case 400...499:
            return DropboxError(code: .badRequest, httpStatus: status, tags: tags, error: errorObject, summary: safe(text))
        default:
            return DropboxError(code: .invalidResponse, httpStatus: status, summary: "unexpected HTTP status \(status)")
        }
    }

    /// `retry_after` in the `error` object (RateLimitError) or at the top level.
    private static func bodyRetryAfter(_ json: JSONValue?) -> Double? {
        guard let json else { return nil }
        for candidate in [json["error"]?["retry_after"], json["retry_after"]] {
            switch candidate {
            case .int(let value)?: return Double(value)
            case .double(let value)?: return value
            default: continue
            }
        }
        return nil
    }

    /// The union tag path of a Dropbox error value, outermost first.
    ///
    /// Stone serializes a union member as `{".tag": name, name: value}` when the value is itself a
    /// union, and inlines struct fields beside `.tag`; for struct members (e.g. `UploadWriteFailed`)
    /// the path continues into the struct's single union-valued field (`reason`), which is how
    /// Dropbox builds `error_summary` (`path/conflict/file/...`).
    static func tagPath(_ value: JSONValue?) -> [String] {
        var tags: [String] = []
        var current = value
        while tags.count < 16, case .object(let members)? = current {
            guard let tag = members[".tag"]?.stringValue else {
                // RateLimitError has no tag of its own; its reason is the interesting part.
                if tags.isEmpty, let reason = members["reason"], reason[".tag"] != nil {
                    current = reason
                    continue
                }
                break
            }
            tags.append(tag)
            if let nested = members[tag], case .object = nested {
                current = nested
                continue
            }
            let unionFields = members.filter { $0.key != ".tag" && $0.value[".tag"]?.stringValue != nil }
            guard unionFields.count == 1 else { break }
            current = unionFields.first!.value
        }
        if tags.isEmpty, case .string(let tag)? = value { tags.append(tag) }
        return tags
    }
}
