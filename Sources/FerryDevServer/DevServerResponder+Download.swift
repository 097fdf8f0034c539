import HTTPTypes
import Hummingbird

/// `files/download`: streams the file from disk (paced by the bandwidth limit), honours
/// `Range`, and puts the metadata in the `Dropbox-API-Result` header (ASCII-only JSON).
/// Like Dropbox it sends a weak `ETag` built from the rev.
extension DevServerResponder {
    func download(_ account: Account, request: Request) throws -> Response {
        let route = Endpoint.download.rawValue
        let arg = try requireObject(try contentArgument(request, route: route), route: route, known: ArgumentFields.download)
        let path = try requiredString(arg, "path", route: route)
        let entry = try resolveReadPath(account, path, route: route)
        guard entry.isFile else { throw lookupError("not_file") }
        if let rev = arg["rev"]?.stringValue, rev != entry.rev { throw lookupError("not_found") }
        guard let diskPath = backend.files.diskPath(account.name, entry: entry) else { throw lookupError("not_found") }
        // Opened before answering, so a concurrent overwrite (a rename) cannot change the bytes mid-stream.
        let file = try DiskFile.openForReading(diskPath)
        let size = try file.size()

        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.dropboxAPIResult] = entry.metadata(tagged: false).asciiJSONText
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = "W/\"\(entry.rev)\""
        guard let (status, range) = ByteRange.answer(request.headers[.range], size: size, headers: &headers) else {
            var failure = HTTPFields()
            failure[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: failure)
        }
        let stats = backend.stats
        let faults = backend.faults
        let body = ThrottledFileBody.make(
            file: file, start: range.start, length: max(0, range.length),
            rate: { faults.configuration.downloadBytesPerSecond },
            pauseAt: { faults.configuration.downloadPauseAtByte },
            sent: { bytes in stats.record { $0.bytesSent += bytes } }
        )
        return Response(status: status, headers: headers, body: body)
    }
}
