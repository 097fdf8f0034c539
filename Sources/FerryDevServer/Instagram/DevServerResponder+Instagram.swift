import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// The Instagram API with Instagram Login on its own paths (an optional `/vNN.N` version prefix accepted):
/// `GET /me`, `/me/media` (paged), `/{id}`, `/{id}/children`, `/refresh_access_token`, and the CDN
/// (`/ig-cdn/…`, signed links that expire), plus the `/__dev/instagram/` control routes. `/{id}` answers only ids
/// this emulation issued, so no path of another emulation is taken. Every API answer reports usage in
/// `X-App-Usage`.
extension DevServerResponder {
    /// The answer when `path` is one of the emulation's, `nil` otherwise (the one routing line calls this first).
    func instagram(_ request: Request, path: String) async throws -> Response? {
        let store = InstagramStore.of(backend)
        if path.hasPrefix("/__dev/instagram/") { return try await instagramControl(request, path: path, store: store) }
        if path.hasPrefix("/ig-cdn/"), request.method == .get { return instagramCDN(path: path, query: request.uri.query, store: store) }
        let api = Self.withoutVersion(path)
        let segments = api.split(separator: "/").map(String.init)
        let isAPI = api == "/me" || api == "/me/media" || api == "/refresh_access_token"
            || (segments.count == 1 && store.item(segments[0]) != nil)
            || (segments.count == 2 && segments[1] == "children" && store.item(segments[0]) != nil)
        guard isAPI, request.method == .get else { return nil }
        let query = FormDecoding.decode(request.uri.query ?? "")
        store.record { $0.apiCalls += 1 }
        backend.stats.record { $0.requestsPerRoute["instagram" + (segments.first.map { $0 == "me" || $0 == "refresh_access_token" ? "/" + api.dropFirst() : "/item" } ?? ""), default: 0] += 1 }
        do {
            if api == "/refresh_access_token" { return try instagramRefresh(query, store: store) }
            let token = Self.instagramToken(request, query: query)
            guard let user = token.flatMap(store.user(ofToken:)) else { throw InstagramGraphError.expiredToken }
            try instagramThrottle(user, store: store)
            var response = try instagramAPI(segments, user: user, query: query, origin: googleOrigin(request), store: store)
            response.headers[HTTPField.Name("X-App-Usage")!] =
                "{\"call_count\":\(user.usagePercent),\"total_cputime\":\(user.usagePercent / 2),\"total_time\":\(user.usagePercent / 2)}"
            return response
        } catch let error as InstagramGraphError {
            return error.response
        }
    }

    private func instagramAPI(_ segments: [String], user: InstagramUserRecord, query: [String: String], origin: String, store: InstagramStore) throws -> Response {
        switch (segments.first, segments.count) {
        case ("me", 1):
            return .json(.object(["user_id": .string(user.userID), "id": .string(user.userID), "username": .string(user.username)]))
        case ("me", 2):
            let limit = min(100, max(1, Int(query["limit"] ?? "") ?? 25))
            let offset = query["after"].flatMap(Self.instagramOffset) ?? 0
            let page = user.posts.dropFirst(offset).prefix(limit)
            let items = page.map { instagramJSON($0, owner: user, origin: origin, store: store, full: true) }
            var paging: [String: JSONValue] = [
                "cursors": .object(["before": .string(Self.instagramCursor(offset)), "after": .string(Self.instagramCursor(offset + page.count))]),
            ]
            if offset + page.count < user.posts.count {
                paging["next"] = .string(origin + "/me/media?limit=\(limit)&after=" + Self.instagramCursor(offset + page.count))
            }
            return .json(.object(["data": .array(items), "paging": .object(paging)]))
        case (let id?, 1):
            guard let item = store.item(id), store.owner(of: id) == user.userID else { throw InstagramGraphError.notFound(id) }
            store.record { $0.itemReads += 1 }
            return .json(instagramJSON(item, owner: user, origin: origin, store: store, full: false))
        case (let id?, _):
            guard let item = store.item(id), store.owner(of: id) == user.userID, item.mediaType == "CAROUSEL_ALBUM" else {
                throw InstagramGraphError.notFound(id)
            }
            let children = item.children.map { instagramJSON($0, owner: user, origin: origin, store: store, full: false) }
            return .json(.object(["data": .array(children)]))
        default:
            throw InstagramGraphError.notFound(segments.joined(separator: "/"))
        }
    }

    /// An item as Graph answers it, with freshly signed links.
    private func instagramJSON(_ item: InstagramPost, owner: InstagramUserRecord, origin: String, store: InstagramStore, full: Bool) -> JSONValue {
        var json: [String: JSONValue] = ["id": .string(item.id), "media_type": .string(item.mediaType), "timestamp": .string(item.timestamp)]
        let video = item.mediaType == "VIDEO"
        if item.mediaType != "CAROUSEL_ALBUM" {
            json["media_url"] = .string(store.signedLink(origin: origin, path: InstagramStore.cdnPath(id: item.id, video: video, thumbnail: false)))
        } else if let first = item.children.first {
            json["media_url"] = .string(store.signedLink(origin: origin, path: InstagramStore.cdnPath(id: first.id, video: first.mediaType == "VIDEO", thumbnail: false)))
        }
        if video { json["thumbnail_url"] = .string(store.signedLink(origin: origin, path: InstagramStore.cdnPath(id: item.id, video: true, thumbnail: true))) }
        if full {
            json["username"] = .string(owner.username)
            json["permalink"] = .string("https://www.instagram.com/p/\(item.id)/")
            json["like_count"] = .int(item.likes)
            json["comments_count"] = .int(item.comments)
            if let caption = item.caption { json["caption"] = .string(caption) }
        }
        return .object(json)
    }

    /// Refuses the call when the user is being throttled: codes 4, 17, 32 and 613 in turn.
    private func instagramThrottle(_ user: InstagramUserRecord, store: InstagramStore) throws {
        guard user.throttleNext > 0 else { return }
        var turn = 0
        _ = store.update(user.userID) { turn = $0.throttleNext; $0.throttleNext -= 1 }
        store.record { $0.rateLimited += 1 }
        let code = [4, 17, 32, 613][turn % 4]
        throw InstagramGraphError(status: .forbidden, code: code, message: "Application request limit reached (#\(code))")
    }

    private func instagramRefresh(_ query: [String: String], store: InstagramStore) throws -> Response {
        guard query["grant_type"] == "ig_refresh_token", let old = query["access_token"] else {
            throw InstagramGraphError(status: .badRequest, code: 100, type: "IGApiException", message: "Missing or invalid grant_type or access_token.")
        }
        let now = store.clock.now
        let issued: (token: String, lifetime: Double)? = try store.state.withLock { state in
            guard let record = state.tokens[old], record.expiresAt > now, let user = state.users[record.userID] else { return nil }
            guard now - record.issuedAt >= user.refreshMinimumAge else {
                throw InstagramGraphError(status: .badRequest, code: 10, type: "IGApiException", message: "The token is too new to refresh.")
            }
            state.stats.refreshes += 1
            return (InstagramStore.issueToken(&state, userID: record.userID, now: now), user.tokenLifetime)
        }
        guard let issued else { throw InstagramGraphError.expiredToken }
        return .json(.object(["access_token": .string(issued.token), "token_type": .string("bearer"), "expires_in": .int(Int64(issued.lifetime))]))
    }

    private func instagramCDN(path: String, query: String?, store: InstagramStore) -> Response {
        let name = String(path.dropFirst("/ig-cdn/".count))
        guard let bytes = store.cdnContent(name: name) else { return .json(.object(["error": .string("not found")]), status: .notFound) }
        guard store.checkLink(path: path, query: FormDecoding.decode(query ?? "")) else {
            return .json(.object(["error": .string("URL signature expired")]), status: .forbidden)
        }
        store.served(path)
        var headers = HTTPFields()
        headers[.contentType] = name.hasSuffix(".mp4") ? "video/mp4" : "image/jpeg"
        headers[.contentLength] = String(bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The bearer token of the `Authorization` header, else the `access_token` parameter (Graph takes both).
    static func instagramToken(_ request: Request, query: [String: String]) -> String? {
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") { return String(header.dropFirst(7)) }
        return query["access_token"]
    }

    /// `path` without a leading `/vNN.N` Graph version.
    static func withoutVersion(_ path: String) -> String {
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasPrefix("v"), let slash = parts[1].firstIndex(of: "/"),
            Double(parts[1][parts[1].index(after: parts[1].startIndex)..<slash]) != nil
        else { return path }
        return String(parts[1][slash...])
    }

    static func instagramCursor(_ offset: Int) -> String {
        Data("offset:\(offset)".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func instagramOffset(_ cursor: String) -> Int? {
        let padded = cursor + String(repeating: "=", count: (4 - cursor.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), let text = String(data: data, encoding: .utf8), text.hasPrefix("offset:") else { return nil }
        return Int(text.dropFirst("offset:".count)).map { max(0, $0) }
    }
}
