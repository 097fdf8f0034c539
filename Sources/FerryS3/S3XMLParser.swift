/// The recursive-descent parser behind ``S3XMLElement/parse(_:)``.
struct S3XMLParser {
    private let bytes: [UInt8]
    private var index = 0
    /// Deeper nesting than S3 ever uses is refused rather than recursed into.
    private static let maxDepth = 64

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func document() throws(S3XMLParseError) -> S3XMLElement {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        try skipMisc()
        guard peek() == UInt8(ascii: "<") else { throw fail("expected the root element") }
        let root = try element(depth: 0)
        try skipMisc()
        guard index == bytes.count else { throw fail("content after the root element") }
        return root
    }

    // MARK: - Pieces

    /// Whitespace, comments, processing instructions (the XML declaration among them).
    private mutating func skipMisc() throws(S3XMLParseError) {
        while index < bytes.count {
            if isSpace(bytes[index]) {
                index += 1
            } else if starts(with: "<?") {
                try skip(past: "?>")
            } else if starts(with: "<!--") {
                try skip(past: "-->")
            } else if starts(with: "<!") {
                throw fail("DOCTYPE and other declarations are not supported")
            } else {
                return
            }
        }
    }

    private mutating func element(depth: Int) throws(S3XMLParseError) -> S3XMLElement {
        guard depth < Self.maxDepth else { throw fail("nested too deeply") }
        index += 1  // "<"
        let qualifiedName = try name()
        // Attributes (namespaces, xsi:type) carry nothing S3 callers need; skip them, quotes respected.
        while true {
            guard let byte = peek() else { throw fail("unterminated start tag") }
            if byte == UInt8(ascii: "/") {
                guard starts(with: "/>") else { throw fail("stray / in start tag") }
                index += 2
                return S3XMLElement(name: Self.localName(qualifiedName), text: "", children: [])
            }
            if byte == UInt8(ascii: ">") {
                index += 1
                break
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                index += 1
                guard let close = bytes[index...].firstIndex(of: byte) else { throw fail("unterminated attribute value") }
                index = close + 1
            } else {
                index += 1
            }
        }

        var text: [UInt8] = []
        var children: [S3XMLElement] = []
        while true {
            guard let byte = peek() else { throw fail("unterminated element <\(qualifiedName)>") }
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") {
                    index += 2
                    let closing = try name()
                    guard closing == qualifiedName else { throw fail("</\(closing)> closes <\(qualifiedName)>") }
                    while let next = peek(), isSpace(next) { index += 1 }
                    guard peek() == UInt8(ascii: ">") else { throw fail("malformed end tag") }
                    index += 1
                    return S3XMLElement(name: Self.localName(qualifiedName), text: String(decoding: text, as: UTF8.self), children: children)
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>")
                    text.append(contentsOf: bytes[start..<(index - 3)])
                } else if starts(with: "<!--") {
                    try skip(past: "-->")
                } else if starts(with: "<?") {
                    try skip(past: "?>")
                } else {
                    children.append(try element(depth: depth + 1))
                }
            } else if byte == UInt8(ascii: "&") {
                try entity(into: &text)
            } else {
                text.append(byte)
                index += 1
            }
        }
    }

    private mutating func name() throws(S3XMLParseError) -> String {
        let start = index
        while let byte = peek(), !isSpace(byte), byte != UInt8(ascii: ">"), byte != UInt8(ascii: "/"), byte != UInt8(ascii: "=") {
            index += 1
        }
        guard index > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NN;` `&#xNN;`.
    private mutating func entity(into text: inout [UInt8]) throws(S3XMLParseError) {
        guard let end = bytes[index...].prefix(16).firstIndex(of: UInt8(ascii: ";")) else { throw fail("unterminated entity") }
        let body = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        let scalar: Unicode.Scalar?
        switch body {
        case "amp": scalar = "&"
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            if body.hasPrefix("#x") || body.hasPrefix("#X") {
                scalar = UInt32(body.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if body.hasPrefix("#") {
                scalar = UInt32(body.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            } else {
                scalar = nil
            }
        }
        guard let scalar else { throw fail("unknown entity &\(body);") }
        text.append(contentsOf: Array(String(Character(scalar)).utf8))
        index = end + 1
    }

    // MARK: - Helpers

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private func starts(with literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
    }

    /// Moves past the next occurrence of `literal`.
    private mutating func skip(past literal: StaticString) throws(S3XMLParseError) {
        while index < bytes.count {
            if starts(with: literal) {
                index += literal.utf8CodeUnitCount
                return
            }
            index += 1
        }
        throw fail("unterminated construct, expected \(literal)")
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func fail(_ reason: String) -> S3XMLParseError {
        S3XMLParseError(reason: reason, offset: index)
    }

    private static func localName(_ qualified: String) -> String {
        guard let colon = qualified.lastIndex(of: ":") else { return qualified }
        return String(qualified[qualified.index(after: colon)...])
    }
}
