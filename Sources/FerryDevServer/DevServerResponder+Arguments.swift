import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// Authentication and argument decoding shared by all Dropbox routes.
extension DevServerResponder {
    struct Authenticated {
        var account: Account
        var token: String
    }

    /// Validates `Authorization: Bearer <token>` (or the `authorization` URL parameter).
    /// Missing or malformed values (a token that cannot be one: spaces, quotes, non-ASCII) are 400 plain text,
    /// unknown tokens 401 `invalid_access_token`, expired ones 401 `expired_access_token`, as on Dropbox.
    func authenticate(_ request: Request, route: String) throws(DropboxError) -> Authenticated {
        let header = request.headers[.authorization] ?? request.uri.queryParameters["authorization"].map(String.init)
        guard let header else {
            throw .badRequest(route: route, "Must provide HTTP header \"Authorization\" or URL parameter \"authorization\".")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] == "Bearer", Self.isBearerToken(parts[1]) else {
            // The token itself is never echoed back or logged.
            throw .badRequest(route: route, "Invalid authorization value in HTTP header \"Authorization\". Expecting \"Bearer <oauth2-access-token>\".")
        }
        let token = String(parts[1])
        switch backend.tokens.checkAccessToken(token) {
        case .valid(let account): return Authenticated(account: account, token: token)
        case .expired: throw .auth("expired_access_token")
        case .invalid: throw .auth("invalid_access_token")
        }
    }

    /// RFC 6750's `b64token`, the only shape a bearer token can have.
    static func isBearerToken(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        guard index > 0 else { return false }
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        return index == bytes.count
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }

    /// JSON body of an RPC route. No body at all means `null` (routes without arguments); an empty body
    /// that claims to be JSON is not JSON, and Dropbox says so with a 400.
    func rpcArgument(_ request: Request, route: String) async throws -> JSONValue {
        var request = request
        let body = try await request.collectBody(upTo: 32 * 1024 * 1024)
        if body.readableBytes == 0 && request.headers[.contentType] == nil { return .null }
        if let type = request.headers[.contentType] {
            let base = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard base == "application/json" || type == "text/plain; charset=dropbox-cors-hack" else {
                throw DropboxError.badRequest(route: route, "Bad HTTP \"Content-Type\" header: \"\(type)\".  Expecting one of \"application/json\", \"application/json; charset=utf-8\", \"text/plain; charset=dropbox-cors-hack\".")
            }
        }
        do {
            return try JSONValue.parse(utf8: Array(body.readableBytesView))
        } catch {
            throw DropboxError.badRequest(route: route, "request body: could not decode input as JSON")
        }
    }

    /// The argument of a route that takes none: no body, or `null`. Even `{}` is an argument it does not have.
    func voidArgument(_ request: Request, route: String) async throws {
        guard try await rpcArgument(request, route: route).isNull else {
            throw DropboxError.badRequest(route: route, "request body: expected null, got value")
        }
    }

    /// Argument of a content route: the `Dropbox-API-Arg` header (or `arg` URL parameter). The header must be
    /// ASCII: Dropbox requires non-ASCII characters and DEL as `\uXXXX` escapes and refuses raw bytes.
    func contentArgument(_ request: Request, route: String) throws(DropboxError) -> JSONValue {
        let header = request.headers[HTTPField.Name.dropboxAPIArg]
        if let header, !header.utf8.allSatisfy({ $0 < 0x7F }) {
            throw .badRequest(route: route, "HTTP header \"Dropbox-API-Arg\": non-ASCII characters must be escaped as \\uXXXX")
        }
        let text = header ?? request.uri.queryParameters["arg"].map(String.init)
        guard let text else {
            throw .badRequest(route: route, "Must provide HTTP header \"Dropbox-API-Arg\" or URL parameter \"arg\".")
        }
        do {
            return try JSONValue.parse(text)
        } catch {
            throw .badRequest(route: route, "HTTP header \"Dropbox-API-Arg\": could not decode input as JSON")
        }
    }

    /// Upload routes take raw bytes; JSON or form bodies are a client bug Dropbox reports as 400.
    func checkUploadContentType(_ request: Request, route: String) throws(DropboxError) {
        guard let type = request.headers[.contentType] else { return }
        let lowered = type.lowercased()
        guard lowered.hasPrefix("application/octet-stream") || lowered == "text/plain; charset=dropbox-cors-hack" else {
            throw .badRequest(route: route, "Bad HTTP \"Content-Type\" header: \"\(type)\".  Expecting one of \"application/octet-stream\", \"text/plain; charset=dropbox-cors-hack\".")
        }
    }

    /// A required object argument with only the members in `known` (see ``ArgumentFields``).
    func requireObject(_ value: JSONValue, route: String, field: String = "request body", known: Set<String>) throws(DropboxError) -> JSONValue {
        guard case .object = value else { throw .badRequest(route: route, "\(field): expected object") }
        try ArgumentFields.refuseUnknown(value, known: known, route: route, field: field)
        return value
    }

    func requiredString(_ value: JSONValue, _ key: String, route: String, prefix: String = "") throws(DropboxError) -> String {
        guard let member = value[key], !member.isNull else {
            throw .badRequest(route: route, "missing required field '\(prefix)\(key)'")
        }
        guard let string = member.stringValue else { throw .badRequest(route: route, "\(prefix)\(key): expected string") }
        return string
    }

    func optionalBool(_ value: JSONValue, _ key: String, route: String, default fallback: Bool = false) throws(DropboxError) -> Bool {
        guard let member = value[key], !member.isNull else { return fallback }
        guard let bool = member.boolValue else { throw .badRequest(route: route, "\(key): expected boolean") }
        return bool
    }

    /// `UploadSessionCursor` (`session_id`, `offset`).
    func sessionCursor(_ value: JSONValue?, route: String, field: String) throws(DropboxError) -> (id: String, offset: Int64) {
        guard let value, case .object = value else { throw .badRequest(route: route, "missing required field '\(field)'") }
        _ = try requireObject(value, route: route, field: field.isEmpty ? "request body" : field, known: ArgumentFields.uploadSessionCursor)
        let id = try requiredString(value, "session_id", route: route, prefix: field.isEmpty ? "" : field + ".")
        guard let offset = value["offset"]?.intValue, offset >= 0 else {
            throw .badRequest(route: route, "\(field.isEmpty ? "" : field + ".")offset: expected non-negative integer")
        }
        return (id, offset)
    }

    /// Optional `content_hash` argument (64 hex characters).
    func optionalContentHash(_ value: JSONValue, route: String) throws(DropboxError) -> String? {
        guard let member = value["content_hash"], !member.isNull else { return nil }
        guard let hash = member.stringValue, hash.utf8.count == 64 else {
            throw .badRequest(route: route, "content_hash: expected a 64-character hex string")
        }
        return hash.lowercased()
    }
}
