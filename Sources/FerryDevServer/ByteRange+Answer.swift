import HTTPTypes

extension ByteRange {
    /// What to send of a `size`-byte file for a `Range` header: the status (200 or 206) and the range, with
    /// `Content-Range` added to `headers` for a part; `nil` when the range cannot be satisfied (the caller answers
    /// 416 in its provider's way, with `Content-Range: bytes */size`).
    static func answer(_ header: String?, size: Int64, headers: inout HTTPFields) -> (status: HTTPResponse.Status, range: ByteRange)? {
        switch resolve(header, size: size) {
        case .whole:
            return (.ok, ByteRange(start: 0, end: size - 1))
        case .partial(let partial):
            headers[.contentRange] = "bytes \(partial.start)-\(partial.end)/\(size)"
            return (.partialContent, partial)
        case .unsatisfiable:
            return nil
        }
    }
}
