import Foundation

/// Splits a `multipart/related` body (Drive's `uploadType=multipart`: a JSON metadata part, then the media part) into
/// its parts. The body is bounded by the caller; every index is checked, so a malformed body is refused, never read
/// past.
enum GoogleMultipartParser {
    struct Part {
        /// Header names lowercased.
        var headers: [String: String]
        var body: ArraySlice<UInt8>
    }

    /// The boundary from `multipart/related; boundary=…` (quoted or not).
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/related") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// Lines may end in CRLF (RFC 2046) or a bare LF (what Python's email generator writes, and Google accepts).
    static func parts(_ body: [UInt8], boundary: String) throws(GoogleAPIError) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        guard var cursor = find(delimiter, in: body, from: 0) else { throw malformed }
        // One style per body: a bare-LF body's content may end in a CR of its own, which is content, not line break.
        let crlf = body.count >= cursor + delimiter.count + 2 && body[cursor + delimiter.count] == 0x0D
        var parts: [Part] = []
        while parts.count < 8 {
            cursor += delimiter.count
            // `--` after a delimiter closes the body.
            if body.count >= cursor + 2, body[cursor] == 0x2D, body[cursor + 1] == 0x2D { return parts }
            guard let headersStart = skipLineBreak(body, cursor), case let (headersEnd, contentStart)? = headerEnd(body, from: headersStart - 1)
            else { throw malformed }
            guard let next = find([0x0A] + delimiter, in: body, from: max(contentStart - 1, headersStart)) else { throw malformed }
            let contentEnd = crlf && next > contentStart && body[next - 1] == 0x0D ? next - 1 : next
            let headerText = String(decoding: body[headersStart..<max(headersStart, headersEnd)], as: UTF8.self)
            parts.append(Part(headers: headers(headerText), body: body[min(contentStart, contentEnd)..<max(contentStart, contentEnd)]))
            cursor = next + 1
        }
        throw malformed
    }

    private static let malformed = GoogleAPIError.badRequest("Malformed multipart body.", reason: "badContent")

    /// The index after the line break that must follow a delimiter.
    private static func skipLineBreak(_ body: [UInt8], _ index: Int) -> Int? {
        if body.count >= index + 2, body[index] == 0x0D, body[index + 1] == 0x0A { return index + 2 }
        if body.count >= index + 1, body[index] == 0x0A { return index + 1 }
        return nil
    }

    /// Where the headers end (the blank line) and the content starts, searching from the line break before them.
    private static func headerEnd(_ body: [UInt8], from index: Int) -> (Int, Int)? {
        var position = max(0, index)
        while position < body.count {
            guard body[position] == 0x0A else {
                position += 1
                continue
            }
            let lineEnd = position > 0 && body[position - 1] == 0x0D ? position - 1 : position
            if let next = skipLineBreak(body, position + 1) { return (max(lineEnd, index + 1), next) }
            position += 1
        }
        return nil
    }

    private static func headers(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        // "\r\n" is one Character in Swift: both line ends are separators.
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start >= 0, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
