/// The subset of Drive's search language (`q`) the dev server understands: terms joined by `and`, each one of
/// `'ID' in parents`, `name = '…'`, `name != '…'`, `name contains '…'`, `mimeType = '…'`, `mimeType != '…'`,
/// `trashed = true|false`. Strings are single-quoted with `\'` and `\\` escapes. Anything else is refused (400), so
/// a client never gets an answer to a question the server did not understand.
struct GoogleQueryFilter: Sendable, Equatable {
    enum Term: Sendable, Equatable {
        case inParents(String)
        case name(String, equal: Bool)
        case nameContains(String)
        case mimeType(String, equal: Bool)
        case trashed(Bool)
    }

    var terms: [Term]

    /// Longest `q` taken.
    static let maxLength = 8192

    /// The folder the query is limited to, when it names one (the listing then reads that folder's index only).
    var parent: String? {
        for case .inParents(let id) in terms { return id }
        return nil
    }

    init(_ text: String) throws(GoogleAPIError) {
        guard text.utf8.count <= Self.maxLength else { throw .badRequest("The query is too long.", reason: "invalid") }
        var tokens = try Self.tokens(text)
        var terms: [Term] = []
        while !tokens.isEmpty {
            terms.append(try Self.term(&tokens))
            guard !tokens.isEmpty else { break }
            guard tokens.removeFirst() == .word("and"), !tokens.isEmpty else { throw Self.invalid }
        }
        self.terms = terms
    }

    func matches(_ item: GoogleDriveItem, rootID: String?) -> Bool {
        terms.allSatisfy { term in
            switch term {
            case .inParents(let id): item.parents.contains(id == "root" ? rootID ?? id : id)
            case .name(let name, let equal): (item.name == name) == equal
            case .nameContains(let part): item.name.contains(part)
            case .mimeType(let type, let equal): (item.mimeType == type) == equal
            case .trashed(let trashed): item.trashed == trashed
            }
        }
    }

    private enum Token: Equatable {
        case word(String)
        case string(String)
        case op(String)
    }

    private static let invalid = GoogleAPIError.badRequest("Invalid Value", reason: "invalid")

    private static func term(_ tokens: inout [Token]) throws(GoogleAPIError) -> Term {
        guard tokens.count >= 3 else { throw invalid }
        let (first, op, last) = (tokens[0], tokens[1], tokens[2])
        tokens.removeFirst(3)
        switch (first, op, last) {
        case (.string(let id), .word("in"), .word("parents")): return .inParents(id)
        case (.word("name"), .op("="), .string(let name)): return .name(name, equal: true)
        case (.word("name"), .op("!="), .string(let name)): return .name(name, equal: false)
        case (.word("name"), .word("contains"), .string(let part)): return .nameContains(part)
        case (.word("mimeType"), .op("="), .string(let type)): return .mimeType(type, equal: true)
        case (.word("mimeType"), .op("!="), .string(let type)): return .mimeType(type, equal: false)
        case (.word("trashed"), .op("="), .word("true")): return .trashed(true)
        case (.word("trashed"), .op("="), .word("false")): return .trashed(false)
        default: throw invalid
        }
    }

    private static func tokens(_ text: String) throws(GoogleAPIError) -> [Token] {
        var tokens: [Token] = []
        var characters = Substring(text)
        while let next = characters.first {
            if next == " " || next == "\t" || next == "\n" {
                characters.removeFirst()
            } else if next == "'" {
                characters.removeFirst()
                tokens.append(.string(try quoted(&characters)))
            } else if next == "=" {
                characters.removeFirst()
                tokens.append(.op("="))
            } else if next == "!" {
                characters.removeFirst()
                guard characters.popFirst() == "=" else { throw invalid }
                tokens.append(.op("!="))
            } else if next.isLetter {
                let word = characters.prefix { $0.isLetter || $0.isNumber }
                characters.removeFirst(word.count)
                tokens.append(.word(String(word)))
            } else {
                throw invalid
            }
        }
        return tokens
    }

    /// The rest of a quoted string (the opening quote already read).
    private static func quoted(_ characters: inout Substring) throws(GoogleAPIError) -> String {
        var value = ""
        while let character = characters.popFirst() {
            switch character {
            case "'": return value
            case "\\":
                guard let escaped = characters.popFirst() else { throw invalid }
                value.append(escaped)
            default: value.append(character)
            }
        }
        throw invalid
    }
}
