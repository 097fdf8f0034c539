/// A filter glob in rclone's dialect, matched against a `/`-separated path relative to a tree's root
/// (`2025/jan/a.jpg`, no leading slash).
///
/// - `*` matches any run of characters except `/`; `**` matches any run including `/`; `?` one character but `/`;
///   `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one character of (not of) a set; `{jpg,png}` one of the
///   alternatives (not nested); `\` makes the next character literal.
/// - A pattern that starts with `/` is anchored: it must match the whole path from the root. Any other pattern
///   matches the whole path or a tail of it that starts at a path element (`*.jpg` and `jan/*.jpg` match at any
///   depth; `an/*.jpg` does not match `jan/a.jpg`).
/// - A pattern that ends with `/` names directories: it matches every path below such a directory (`tmp/` is
///   `tmp/**`).
///
/// Pure: no file system access. Matching is a dynamic programme over pattern and path, linear in their product,
/// so no pattern can make it exponential.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    /// True for a pattern starting with `/`.
    public let anchored: Bool
    /// One token list per brace alternative.
    let alternatives: [[Token]]

    enum Token: Sendable, Hashable {
        case literal(Unicode.Scalar)
        /// `?`
        case one
        /// `*`
        case star
        /// `**`
        case deepStar
        /// `[…]`: ranges (a single character is a range of one), negated with `!` or `^`.
        case set([ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    /// Why a pattern cannot be used.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        public var problem: String
        public var fix: String
        public var description: String { "\(problem); \(fix)" }
    }

    public var description: String { text }

    /// Compiles `text`, or says what is wrong with it.
    public init(_ text: String) throws(SyntaxError) {
        self.text = text
        var body = Substring(text)
        guard !body.isEmpty else {
            throw SyntaxError(problem: "the pattern is empty", fix: "write a glob such as *.jpg or /2025/**")
        }
        anchored = body.hasPrefix("/")
        if anchored { body = body.dropFirst() }
        // A directory pattern matches what lies below the directory.
        var expanded = String(body)
        if expanded.hasSuffix("/") && !expanded.hasSuffix("\\/") { expanded += "**" }
        guard !expanded.isEmpty else {
            throw SyntaxError(problem: "the pattern / matches nothing", fix: "write /** for everything")
        }
        alternatives = try Self.expandBraces(expanded).map { alternative throws(SyntaxError) in try Self.tokens(of: alternative) }
    }

    /// True when the pattern matches `path` (relative to the tree's root, `/`-separated, no leading `/`).
    public func matches(_ path: String) -> Bool {
        let scalars = Array(path.unicodeScalars)
        for tokens in alternatives {
            if Self.match(tokens, scalars[...]) { return true }
            guard !anchored else { continue }
            // Unanchored: a tail that starts at a path element.
            for index in scalars.indices where scalars[index] == "/" {
                if Self.match(tokens, scalars[(index + 1)...]) { return true }
            }
        }
        return false
    }

    /// If this is a directory rule (`dir/**` or `dir/`), the pattern the directory's own path must match: a
    /// directory it matches can be left unread when the rule excludes.
    public var directoryPrefix: GlobPattern? {
        guard alternatives.count == 1, let tokens = alternatives.first, tokens.count >= 2,
            tokens[tokens.count - 1] == .deepStar, tokens[tokens.count - 2] == .literal("/"),
            !tokens.dropLast(2).isEmpty
        else { return nil }
        return GlobPattern(text: text, anchored: anchored, alternatives: [Array(tokens.dropLast(2))])
    }

    private init(text: String, anchored: Bool, alternatives: [[Token]]) {
        self.text = text
        self.anchored = anchored
        self.alternatives = alternatives
    }

    // MARK: - Compiling

    /// `a{b,c}d{e,f}` → `abde`, `abdf`, `acde`, `acdf`. Escaped braces stay literal.
    static func expandBraces(_ text: String) throws(SyntaxError) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var open: Int?
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 1
            case "{":
                guard open == nil else {
                    throw SyntaxError(problem: "nested { in \(text)", fix: "write alternatives without nesting, for example *.{jpg,png}")
                }
                open = index
            case "}":
                guard let start = open else {
                    throw SyntaxError(problem: "} without { in \(text)", fix: "escape a literal brace as \\}")
                }
                var parts = [String]()
                var current = String.UnicodeScalarView()
                var position = start + 1
                while position < index {
                    if scalars[position] == "\\" && position + 1 < index {
                        current.append(scalars[position])
                        current.append(scalars[position + 1])
                        position += 2
                        continue
                    }
                    if scalars[position] == "," {
                        parts.append(String(current))
                        current = String.UnicodeScalarView()
                    } else {
                        current.append(scalars[position])
                    }
                    position += 1
                }
                parts.append(String(current))
                let head = String(String.UnicodeScalarView(scalars[..<start]))
                let tail = String(String.UnicodeScalarView(scalars[(index + 1)...]))
                var result = [String]()
                for rest in try expandBraces(tail) {
                    for part in parts { result.append(head + part + rest) }
                }
                return result
            default: break
            }
            index += 1
        }
        if open != nil {
            throw SyntaxError(problem: "{ without } in \(text)", fix: "close the alternatives with }, or escape a literal brace as \\{")
        }
        return [text]
    }

    static func tokens(of text: String) throws(SyntaxError) -> [Token] {
        let scalars = Array(text.unicodeScalars)
        var tokens = [Token]()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\":
                guard index + 1 < scalars.count else {
                    throw SyntaxError(problem: "the pattern \(text) ends with a lone \\", fix: "escape a literal backslash as \\\\")
                }
                tokens.append(.literal(scalars[index + 1]))
                index += 2
                continue
            case "*":
                if index + 1 < scalars.count && scalars[index + 1] == "*" {
                    tokens.append(.deepStar)
                    index += 2
                    // `***` is `**`.
                    while index < scalars.count && scalars[index] == "*" { index += 1 }
                    continue
                }
                tokens.append(.star)
            case "?":
                tokens.append(.one)
            case "[":
                var position = index + 1
                var negated = false
                if position < scalars.count && (scalars[position] == "!" || scalars[position] == "^") {
                    negated = true
                    position += 1
                }
                var ranges = [ClosedRange<Unicode.Scalar>]()
                var first = true
                while position < scalars.count && (scalars[position] != "]" || first) {
                    first = false
                    var low = scalars[position]
                    if low == "\\" && position + 1 < scalars.count {
                        position += 1
                        low = scalars[position]
                    }
                    if position + 2 < scalars.count && scalars[position + 1] == "-" && scalars[position + 2] != "]" {
                        let high = scalars[position + 2]
                        guard low <= high else {
                            throw SyntaxError(problem: "the range \(low)-\(high) in \(text) is backwards", fix: "write the lower end first, as in [a-z]")
                        }
                        ranges.append(low...high)
                        position += 3
                    } else {
                        ranges.append(low...low)
                        position += 1
                    }
                }
                guard position < scalars.count else {
                    throw SyntaxError(problem: "[ without ] in \(text)", fix: "close the set with ], or escape a literal bracket as \\[")
                }
                tokens.append(.set(ranges, negated: negated))
                index = position + 1
                continue
            default:
                tokens.append(.literal(scalar))
            }
            index += 1
        }
        return tokens
    }

    // MARK: - Matching

    /// Whether `tokens` match all of `path`: `row[j]` is "tokens[i...] match path[j...]", computed from the last
    /// token back.
    static func match(_ tokens: [Token], _ path: ArraySlice<Unicode.Scalar>) -> Bool {
        let path = Array(path)
        let count = path.count
        var next = [Bool](repeating: false, count: count + 1)
        next[count] = true
        var row = [Bool](repeating: false, count: count + 1)
        for token in tokens.reversed() {
            switch token {
            case .star, .deepStar:
                row[count] = next[count]
                var j = count - 1
                while j >= 0 {
                    let crosses = token == .deepStar || path[j] != "/"
                    row[j] = next[j] || (crosses && row[j + 1])
                    j -= 1
                }
            default:
                row[count] = false
                for j in 0..<count {
                    let fits: Bool
                    switch token {
                    case .literal(let scalar): fits = path[j] == scalar
                    case .one: fits = path[j] != "/"
                    case .set(let ranges, let negated):
                        fits = path[j] != "/" && (ranges.contains { $0.contains(path[j]) } != negated)
                    case .star, .deepStar: fits = false
                    }
                    row[j] = fits && next[j + 1]
                }
            }
            swap(&row, &next)
        }
        return next[0]
    }
}
