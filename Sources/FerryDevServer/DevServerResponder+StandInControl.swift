import FerryCore
import Foundation
import Hummingbird

/// `/__dev/` routes seeding the stand-in services:
///
/// - `POST /__dev/flickr/users {"user_id", "count", "total_as": "string"|"number"}` creates or
///   replaces a Flickr user and answers `{"user_id", "count", "total_as", "photos": [...]}`.
/// - `POST /__dev/web {"path", "size", "seed", "modified"?}` creates or replaces a web file with pseudo-random
///   content (dated `modified`, seconds since 1970, when given); `PUT /__dev/web/{path}` stores the raw body; both answer
///   `{"path", "size", "etag", "last_modified", "sha256"}`. `DELETE /__dev/web/{path}` removes one.
/// - `POST /__dev/web/status {"path", "status"}` forces a status (e.g. 410) for a path;
///   `"status": null` serves the file again.
extension DevServerResponder {
    /// Largest web file `POST /__dev/web` generates or `PUT /__dev/web/{path}` accepts.
    static let maxWebFileSize: Int64 = 8 << 30

    func webFileControl(_ request: Request, path: String) async throws -> Response? {
        guard path.hasPrefix("/__dev/web/"), request.method == .put || request.method == .delete else { return nil }
        let raw = String(path.dropFirst("/__dev/web/".count))
        guard let relative = raw.removingPercentEncoding.flatMap(WebStore.normalize) else {
            throw DropboxError.text(.badRequest, "Invalid web path.")
        }
        if request.method == .delete {
            guard backend.web.remove(path: relative) else { throw DropboxError.text(.notFound, "No web file at \(relative).") }
            return .json(.object([:]))
        }
        do {
            return .json(Self.webFileJSON(try await backend.web.store(path: relative, body: request.body, limit: Self.maxWebFileSize)))
        } catch is BodyTooLarge {
            throw DropboxError.text(.contentTooLarge, "Web files are limited to \(Self.maxWebFileSize) bytes.")
        } catch let error as DevServerError {
            throw DropboxError.text(.conflict, error.description)
        }
    }

    func standInControl(_ method: HTTPRequest.Method, path: String, json: JSONValue) throws -> Response? {
        switch (method, path) {
        case (.post, "/__dev/flickr/users"):
            guard let userID = json["user_id"]?.stringValue, let count = json["count"]?.intValue else {
                throw DropboxError.text(.badRequest, "Expected {\"user_id\", \"count\", \"total_as\"?: \"string\"|\"number\"}.")
            }
            let totalAs = json["total_as"]?.stringValue ?? "string"
            guard totalAs == "string" || totalAs == "number", count <= FlickrStore.maxPhotosPerUser else {
                throw DropboxError.text(.badRequest, "total_as must be \"string\" or \"number\"; count at most \(FlickrStore.maxPhotosPerUser).")
            }
            let user = FlickrUser(userID: userID, count: Int(count), totalAsString: totalAs == "string")
            let photos: [FlickrPhoto]
            do {
                photos = try backend.flickr.seed(user)
            } catch let error as DevServerError {
                throw DropboxError.text(.badRequest, error.description)
            }
            guard case .object(let members) = user.json else { return nil }
            return .json(.object(members.merging(["photos": .array(photos.map(Self.flickrPhotoJSON))]) { $1 }))
        case (.post, "/__dev/web"):
            guard let relative = json["path"]?.stringValue.flatMap(WebStore.normalize),
                  let size = json["size"]?.intValue, (0...Self.maxWebFileSize).contains(size)
            else {
                throw DropboxError.text(.badRequest, "Expected {\"path\": \"a/b.jpg\", \"size\": N, \"seed\"?: S}.")
            }
            let seed = json["seed"]?.intValue.map { UInt64(bitPattern: $0) } ?? 0
            do {
                return .json(Self.webFileJSON(try backend.web.create(
                    path: relative, size: size, seed: seed, modified: json["modified"]?.intValue)))
            } catch let error as DevServerError {
                throw DropboxError.text(.conflict, error.description)
            }
        case (.post, "/__dev/web/redirect"):
            let usage = "Expected {\"path\": \"a/b.jpg\", \"location\": \"/web/c.jpg\" or an absolute URL or null, \"status\"?: 301|302|303|307|308}."
            guard let relative = json["path"]?.stringValue.flatMap(WebStore.normalize) else { throw DropboxError.text(.badRequest, usage) }
            let status = json["status"]?.intValue ?? 302
            guard [301, 302, 303, 307, 308].contains(status) else { throw DropboxError.text(.badRequest, usage) }
            switch json["location"] {
            case .string(let location)?:
                backend.web.setRedirect((Int(status), location), for: relative)
            case nil, .null?:
                backend.web.setRedirect(nil, for: relative)
            default:
                throw DropboxError.text(.badRequest, usage)
            }
            return .json(.object(["path": .string(relative), "location": json["location"] ?? .null, "status": .int(status)]))
        case (.post, "/__dev/web/status"):
            guard let relative = json["path"]?.stringValue.flatMap(WebStore.normalize) else {
                throw DropboxError.text(.badRequest, "Expected {\"path\": \"a/b.jpg\", \"status\": 410}.")
            }
            let status = json["status"]?.intValue
            guard status.map({ (100...599).contains($0) }) ?? true else { throw DropboxError.text(.badRequest, "status must be 100...599 or null.") }
            backend.web.forceStatus(status.map { Int($0) }, for: relative)
            return .json(.object(["path": .string(relative), "status": status.map(JSONValue.int) ?? .null]))
        default:
            return nil
        }
    }

    static func webFileJSON(_ file: WebFile) -> JSONValue {
        .object([
            "path": .string(file.path), "size": .int(file.size), "etag": .string(file.etag),
            "last_modified": .string(file.lastModified), "sha256": .string(file.sha256),
        ])
    }

    static func flickrPhotoJSON(_ photo: FlickrPhoto) -> JSONValue {
        .object([
            "id": .string(photo.id), "owner": .string(photo.owner), "secret": .string(photo.secret),
            "server": .string(photo.server), "farm": .int(Int64(photo.farm)), "title": .string(photo.title),
            "width": .int(Int64(photo.width)), "height": .int(Int64(photo.height)), "path": .string(photo.path()),
        ])
    }
}
