import AsyncHTTPClient
import FerryCore
import Foundation
import Logging
import NIOCore

/// Calls the Instagram API with Instagram Login (graph.instagram.com): the token's user, its media in pages,
/// an album's children, one item again (fresh signed links) and the long-lived token's refresh.
///
/// The token travels in the `Authorization` header (Graph takes a bearer token there), except for
/// `/refresh_access_token`, whose documented form has it in the query. Logs and errors name the call, never the
/// token or a signed URL. Every answer's usage headers go to `usage`, so the caller can pace the account.
public struct InstagramClient: Sendable {
    let httpClient: HTTPClient
    public let endpoints: InstagramEndpoints
    let logger: Logger
    let requestTimeout: TimeAmount
    /// Told the usage headers of every answer that has them.
    let usage: (@Sendable (InstagramUsage) -> Void)?
    /// Largest answer read (a page of 100 items with captions is well under this).
    static let maxAnswerBytes = 8 << 20

    public init(
        httpClient: HTTPClient, endpoints: InstagramEndpoints = .production, logger: Logger, requestTimeout: Duration = .seconds(60),
        usage: (@Sendable (InstagramUsage) -> Void)? = nil
    ) {
        self.httpClient = httpClient
        self.endpoints = endpoints
        self.logger = logger
        let parts = requestTimeout.components
        self.requestTimeout = .nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
        self.usage = usage
    }

    /// `GET /me?fields=user_id,username`: whose token it is (how `ferry account add` checks a token).
    public func me(token: String) async throws(InstagramError) -> InstagramUser {
        let json = try await get("me", path: "/me", query: [("fields", "user_id,username")], token: token)
        guard let username = json["username"]?.stringValue else {
            throw InstagramError(code: .invalidResponse, message: "me: answer without a username")
        }
        let id = json["user_id"]?.stringValue ?? json["user_id"]?.intValue.map(String.init) ?? json["id"]?.stringValue ?? ""
        return InstagramUser(userID: id, username: username)
    }

    /// One page of the token user's media, newest first, after `cursor` (the first page without one).
    public func media(token: String, after cursor: String?, limit: Int) async throws(InstagramError) -> InstagramMediaPage {
        var query = [("fields", InstagramMedia.feedFields), ("limit", String(min(100, max(1, limit))))]
        if let cursor { query.append(("after", cursor)) }
        return try InstagramMediaPage(json: try await get("media", path: "/me/media", query: query, token: token))
    }

    /// Every child of album `id` (albums hold at most 20; pages are followed all the same, to a bound).
    public func children(of id: String, token: String) async throws(InstagramError) -> [InstagramMedia] {
        var items: [InstagramMedia] = []
        var cursor: String?
        for _ in 0..<20 {
            var query = [("fields", InstagramMedia.childFields)]
            if let cursor { query.append(("after", cursor)) }
            let page = try InstagramMediaPage(json: try await get("children", path: "/\(Self.percentEncoded(id))/children", query: query, token: token))
            items += page.items
            guard let next = page.after else { break }
            cursor = next
        }
        return items
    }

    /// `GET /{id}`: one item again, with fresh signed links.
    public func item(_ id: String, token: String) async throws(InstagramError) -> InstagramMedia {
        let json = try await get("item", path: "/\(Self.percentEncoded(id))", query: [("fields", InstagramMedia.childFields)], token: token)
        guard let media = InstagramMedia(json: json) else {
            throw InstagramError(code: .invalidResponse, message: "item: answer without an id")
        }
        return media
    }

    /// `GET /refresh_access_token?grant_type=ig_refresh_token&access_token=…`: the long-lived token for another
    /// 60 days (it must be at least a day old and unexpired).
    public func refresh(token: String) async throws(InstagramError) -> InstagramTokenGrant {
        let json = try await get(
            "refresh_access_token", path: "/refresh_access_token", query: [("grant_type", "ig_refresh_token"), ("access_token", token)], token: nil,
            secrets: [token])
        guard let fresh = json["access_token"]?.stringValue, !fresh.isEmpty else {
            throw InstagramError(code: .invalidResponse, message: "refresh_access_token: answer without an access_token")
        }
        return InstagramTokenGrant(accessToken: fresh, expiresIn: json["expires_in"]?.numberValue)
    }

    /// A GET of the API answered with its parsed JSON, or the service's error as an ``InstagramError``.
    func get(_ call: String, path: String, query: [(String, String)], token: String?, secrets: [String] = []) async throws(InstagramError) -> JSONValue {
        let secrets = secrets + (token.map { [$0] } ?? [])
        let text = query.map { "\(Self.percentEncoded($0.0))=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: endpoints.api + path + (text.isEmpty ? "" : "?" + text))
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        logger.debug("instagram call", metadata: ["call": "\(call)"])
        let status: Int
        let body: ByteBuffer
        do {
            let response = try await httpClient.execute(request, timeout: requestTimeout, logger: logger)
            status = Int(response.status.code)
            let reported = InstagramUsage.parse(
                appUsage: response.headers.first(name: "X-App-Usage"), businessUsage: response.headers.first(name: "X-Business-Use-Case-Usage"))
            if let reported { usage?(reported) }
            body = try await response.body.collect(upTo: Self.maxAnswerBytes)
            if !(200..<300).contains(status) {
                throw Self.failure(call, status: status, body: String(buffer: body), usage: reported, secrets: secrets)
            }
        } catch let error as InstagramError {
            throw error
        } catch let error as HTTPClientError {
            let timeouts: [HTTPClientError] = [.readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout]
            throw InstagramError(code: timeouts.contains(error) ? .timeout : .transport, message: "\(call): \(Self.redacted("\(error)", secrets))")
        } catch {
            throw InstagramError(code: .transport, message: "\(call): \(Self.redacted(String(describing: type(of: error)), secrets))")
        }
        do {
            return try JSONValue.parse(String(buffer: body))
        } catch {
            throw InstagramError(code: .invalidResponse, message: "\(call): the answer is not JSON")
        }
    }

    /// The error an unsuccessful answer stands for: Graph's `{"error": {"code", "message", "type"}}` when present,
    /// the HTTP status otherwise.
    public static func failure(_ call: String, status: Int, body: String, usage: InstagramUsage?, secrets: [String]) -> InstagramError {
        let error = (try? JSONValue.parse(body))?["error"]
        let graphCode = error?["code"]?.intValue.map { Int($0) }
        let message = "\(call): " + redacted(String((error?["message"]?.stringValue ?? "HTTP \(status)").prefix(300)), secrets)
        let wait = usage.flatMap { $0.minutesToRegainAccess > 0 ? $0.minutesToRegainAccess * 60 : nil }
        if let graphCode, InstagramError.rateLimitCodes.contains(graphCode) || status == 429 {
            return InstagramError(code: .rateLimited, graphCode: graphCode, message: message, httpStatus: status, retryAfter: wait)
        }
        switch (graphCode, status) {
        case (190, _): return InstagramError(code: .invalidToken, graphCode: 190, message: message, httpStatus: status)
        case (_, 429): return InstagramError(code: .rateLimited, message: message, httpStatus: status, retryAfter: wait)
        case (_, 404): return InstagramError(code: .notFound, graphCode: graphCode, message: message, httpStatus: status)
        case (100, _) where error?["error_subcode"]?.intValue == 33:
            return InstagramError(code: .notFound, graphCode: 100, message: message, httpStatus: status)
        case (_, 500...599): return InstagramError(code: .serverError, graphCode: graphCode, message: message, httpStatus: status)
        case (.some, _): return InstagramError(code: .apiError, graphCode: graphCode, message: message, httpStatus: status)
        default: return InstagramError(code: .httpStatus, message: message, httpStatus: status)
        }
    }

    /// Removes secrets from text that may echo a request.
    static func redacted(_ text: String, _ secrets: [String]) -> String {
        secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if EndpointSyntax.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~") {
                out.append(Character(UnicodeScalar(byte)))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
