/// A single `Range: bytes=...` request resolved against a file size.
struct ByteRange: Sendable, Equatable {
    var start: Int64
    /// Inclusive.
    var end: Int64

    var length: Int64 { end - start + 1 }

    enum Resolution: Equatable {
        /// No usable Range header (absent, multi-range or garbled): send the whole file.
        case whole
        case partial(ByteRange)
        case unsatisfiable
    }

    static func resolve(_ header: String?, size: Int64) -> Resolution {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = trimmed(header.dropFirst(6))
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = trimmed(spec[..<dash])
        let last = trimmed(spec[spec.index(after: dash)...])
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return .whole }
            guard size > 0 else { return .unsatisfiable }
            return .partial(ByteRange(start: max(0, size - suffix), end: size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        var end = size - 1
        if !last.isEmpty {
            guard let value = Int64(last), value >= start else { return .whole }
            end = min(value, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(ByteRange(start: start, end: end))
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var s = text
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
