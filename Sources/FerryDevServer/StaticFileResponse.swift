import Hummingbird

/// Answers `GET`/`HEAD` for an open file the way a typical static web server (or CDN) does:
/// strong `ETag`, `Last-Modified`, `Accept-Ranges: bytes`, `If-None-Match` /
/// `If-Modified-Since` (304), `Range` (206, or 416 with `Content-Range: bytes */size`) and
/// `If-Range`, which falls back to the full body when the validator no longer matches.
struct StaticFileResponse {
    var file: DiskFile
    var size: Int64
    var contentType: String
    /// Quoted strong entity tag, e.g. `"1a2b-400"`.
    var etag: String
    /// Whole seconds since 1970.
    var lastModified: Int64

    /// Builds the response; the body follows the pace `rate` and stops before the byte `pauseAt` answers (0: never).
    /// `started` learns the start offset of every body actually sent
    /// (0 for a full `GET`); `sent` learns every piece written.
    func response(
        to request: Request,
        rate: @escaping @Sendable () -> Int64,
        pauseAt: @escaping @Sendable () -> Int64,
        started: (Int64) -> Void,
        sent: @escaping @Sendable (Int64) -> Void
    ) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.lastModified] = HTTPDate.format(epochSeconds: lastModified)
        headers[.acceptRanges] = "bytes"
        if isNotModified(request) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        if request.method == .head {
            // A HEAD answer carries the length of the body a GET would get, but no body.
            headers[.contentLength] = String(size)
            return Response(status: .ok, headers: headers, body: ResponseBody())
        }
        let header = rangeApplies(request) ? request.headers[.range] : nil
        guard let (status, range) = ByteRange.answer(header, size: size, headers: &headers) else {
            var failure = HTTPFields()
            failure[.contentRange] = "bytes */\(size)"
            failure[.acceptRanges] = "bytes"
            return Response(status: .rangeNotSatisfiable, headers: failure)
        }
        started(range.start)
        let body = ThrottledFileBody.make(file: file, start: range.start, length: max(0, range.length), rate: rate, pauseAt: pauseAt, sent: sent)
        return Response(status: status, headers: headers, body: body)
    }

    /// `If-None-Match` (weak comparison) wins over `If-Modified-Since`, as RFC 9110 orders them.
    private func isNotModified(_ request: Request) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            if Self.trimmed(match) == "*" { return true }
            let opaque = Self.opaqueTag(etag)
            return match.split(separator: ",").contains { Self.opaqueTag(Self.trimmed(String($0))) == opaque }
        }
        if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse) {
            return lastModified <= since
        }
        return false
    }

    /// A `Range` counts unless `If-Range` names another version: an entity tag must match
    /// strongly (a weak one never does), a date must equal `Last-Modified` exactly.
    private func rangeApplies(_ request: Request) -> Bool {
        guard request.headers[.range] != nil else { return false }
        guard let ifRange = request.headers[.ifRange].map(Self.trimmed) else { return true }
        if ifRange.hasPrefix("\"") || ifRange.hasPrefix("W/") { return ifRange == etag }
        return HTTPDate.parse(ifRange) == lastModified
    }

    private static func opaqueTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    private static func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
