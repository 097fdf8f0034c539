/// One element of an S3 XML document: its local name, its own text, its child elements.
///
/// S3's answers are small, namespace-qualified but otherwise plain documents, so a focused parser
/// suffices: elements, attributes (skipped), text with the predefined and numeric entities, CDATA,
/// comments and processing instructions. A DOCTYPE is refused (S3 never sends one, and refusing it
/// rules out entity expansion tricks).
struct S3XMLElement: Sendable, Equatable {
    /// Local name, without any namespace prefix.
    var name: String
    /// The element's direct text, entities decoded (not trimmed).
    var text: String
    var children: [S3XMLElement]

    /// First child called `name`.
    func child(_ name: String) -> S3XMLElement? {
        children.first { $0.name == name }
    }

    /// Every child called `name`, in document order.
    func children(_ name: String) -> [S3XMLElement] {
        children.filter { $0.name == name }
    }

    /// Text of the first child called `name`.
    func text(of name: String) -> String? {
        child(name)?.text
    }

    /// Parses a whole document and returns its root element.
    static func parse(_ bytes: [UInt8]) throws(S3XMLParseError) -> S3XMLElement {
        var parser = S3XMLParser(bytes: bytes)
        return try parser.document()
    }
}

/// Why a body is not a well-formed S3 XML document.
struct S3XMLParseError: Error, Sendable, CustomStringConvertible {
    var reason: String
    var offset: Int
    var description: String { "\(reason) at byte \(offset)" }
}
