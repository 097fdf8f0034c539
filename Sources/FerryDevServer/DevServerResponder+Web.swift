import Foundation
import Hummingbird

/// Plain web files at `GET`/`HEAD /web/{path}`, standing in for any HTTPS server a user
/// fetches from: files under `<storage>/.web/` served with strong validators, ranges and
/// `If-Range`, at the bandwidth limit; a path can be forced to answer e.g. 410.
extension DevServerResponder {
    private static let reasonPhrases = [
        301: "Moved Permanently", 302: "Found", 303: "See Other", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone",
        429: "Too Many Requests", 451: "Unavailable For Legal Reasons", 500: "Internal Server Error",
        502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]

    func web(_ rest: String, request: Request) throws -> Response {
        guard request.method == .get || request.method == .head else { throw methodNotAllowed("GET, HEAD") }
        let notFound = DropboxError.text(.notFound, "Not Found")
        guard let decoded = rest.removingPercentEncoding, let relative = WebStore.normalize(decoded) else { throw notFound }
        let urlPath = "/web/" + relative
        let stats = backend.stats
        stats.record { $0.webRequestsPerPath[urlPath, default: 0] += 1 }
        if let redirect = backend.web.redirect(relative) {
            let phrase = Self.reasonPhrases[redirect.status] ?? "Redirect"
            var response = DropboxError.text(HTTPResponse.Status(code: redirect.status, reasonPhrase: phrase), phrase)
            response.headers[.location] = redirect.location
            throw response
        }
        if let forced = backend.web.forcedStatus(relative) {
            let phrase = Self.reasonPhrases[forced] ?? "Status \(forced)"
            throw DropboxError.text(HTTPResponse.Status(code: forced, reasonPhrase: phrase), phrase)
        }
        guard let file = try? DiskFile.openForReading(backend.web.diskPath(relative)),
              let status = try? file.status(), status.isRegularFile
        else { throw notFound }
        let isGet = request.method == .get
        let response = StaticFileResponse(
            file: file, size: status.size, contentType: WebStore.contentType(relative),
            etag: WebStore.etag(status), lastModified: status.modifiedSeconds
        )
        return response.response(
            to: request, rate: downloadRate, pauseAt: downloadPauseAt,
            started: { start in
                if isGet { stats.record { $0.webRangeStartsPerPath[urlPath, default: []].append(start) } }
            },
            sent: { bytes in stats.record { $0.webBytesSent += bytes } }
        )
    }
}
