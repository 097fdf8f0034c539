import FerryCore
import Foundation
import Hummingbird
import NIOCore

/// The Flickr REST stand-in at `/services/rest/` (base URL = server root, like
/// `https://api.flickr.com/services/rest/`). It implements `flickr.people.getPublicPhotos`
/// with Flickr's parameters, paging, error codes and output formats, and `flickr.test.echo` (which checks the
/// API key and answers the parameters back, as Flickr does).
extension DevServerResponder {
    func flickrREST(_ request: Request) async throws -> Response {
        guard request.method == .get || request.method == .post else { throw methodNotAllowed("GET, POST") }
        var parameters = FormDecoding.decode(request.uri.query ?? "")
        if request.method == .post {
            // Flickr takes the same parameters as a form body; the query string wins on conflicts.
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            for (key, value) in FormDecoding.decode(String(buffer: body)) where parameters[key] == nil {
                parameters[key] = value
            }
        }
        let method = parameters["method"] ?? ""
        backend.stats.record { $0.flickrCallsPerMethod[method, default: 0] += 1 }
        let (parsedFormat, requestedFormat) = FlickrResponseFormat.parse(parameters)
        guard let format = parsedFormat else {
            return FlickrResponseFormat.xml.failure(code: 111, message: "Format \"\(requestedFormat)\" not found")
        }
        guard method == "flickr.people.getPublicPhotos" || method == "flickr.test.echo" else {
            return format.failure(code: 112, message: "Method \"\(method)\" not found")
        }
        guard let key = parameters["api_key"], backend.configuration.acceptedFlickrAPIKeys.contains(key) else {
            return format.failure(code: 100, message: Self.invalidKeyMessage(parameters["api_key"] ?? ""))
        }
        if method == "flickr.test.echo" {
            // Echoes every parameter but the key, each as {"_content": value}, as Flickr answers it.
            var members = [String: JSONValue]()
            for (name, value) in parameters where name != "api_key" { members[name] = .object(["_content": .string(value)]) }
            return format.success(members)
        }
        guard let userID = parameters["user_id"], let user = backend.flickr.user(userID) else {
            return format.failure(code: 1, message: "User not found")
        }
        return format.success(["photos": publicPhotos(user, parameters: parameters, request: request)])
    }

    /// Flickr keys are 32 hex digits: anything else has an "invalid format", a well-formed
    /// unknown key is "not found".
    private static func invalidKeyMessage(_ key: String) -> String {
        let hex = key.utf8.count == 32 && key.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        return hex ? "Invalid API Key (Key not found)" : "Invalid API Key (Key has invalid format)"
    }

    /// One page of the stream. `per_page` is clamped to 1...500 (missing, 0 or garbage means
    /// 100, as Flickr treats an empty value); a page past the end has no photos.
    private func publicPhotos(_ user: FlickrUser, parameters: [String: String], request: Request) -> JSONValue {
        let requestedPerPage = parameters["per_page"].flatMap { Int($0) } ?? 0
        let perPage = requestedPerPage == 0 ? 100 : min(500, max(1, requestedPerPage))
        let page = max(1, parameters["page"].flatMap { Int($0) } ?? 1)
        backend.stats.record { $0.flickrPagesListed.append(page) }
        let pages = (user.count + perPage - 1) / perPage
        let (start, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        let photos = overflow ? [] : backend.flickr.photos(of: user, from: start, count: perPage)
        let extras = Set((parameters["extras"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        let origin = "http://\(request.head.authority ?? backend.configuration.host)"
        return .object([
            "page": .int(Int64(page)),
            "pages": .int(Int64(pages)),
            "perpage": .int(Int64(perPage)),
            "total": user.totalAsString ? .string(String(user.count)) : .int(Int64(user.count)),
            "photo": .array(photos.map { Self.photoJSON($0, extras: extras, origin: origin) }),
        ])
    }

    private static func photoJSON(_ photo: FlickrPhoto, extras: Set<String>, origin: String) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(photo.id), "owner": .string(photo.owner), "secret": .string(photo.secret),
            "server": .string(photo.server), "farm": .int(Int64(photo.farm)), "title": .string(photo.title),
            "ispublic": .int(1), "isfriend": .int(0), "isfamily": .int(0),
        ]
        if extras.contains("date_upload") { members["dateupload"] = .string(String(photo.uploaded)) }
        if extras.contains("owner_name") { members["ownername"] = .string(photo.owner) }
        if extras.contains("media") {
            members["media"] = .string("photo")
            members["media_status"] = .string("ready")
        }
        for size in FlickrPhotoSize.allCases where extras.contains("url_" + size.extrasLabel) {
            let (width, height) = photo.dimensions(size)
            members["url_" + size.extrasLabel] = .string(origin + photo.path(suffix: size.rawValue))
            members["height_" + size.extrasLabel] = .int(Int64(height))
            members["width_" + size.extrasLabel] = .int(Int64(width))
        }
        return .object(members)
    }
}
