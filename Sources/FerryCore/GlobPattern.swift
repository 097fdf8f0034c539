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
/// Producers write patterns (a fetch's `filter` option, a schedule's template), so their cost is bounded: a
/// pattern is at most ``maxLength`` bytes with at most ``maxAlternatives`` `{` and `,`, and braces are matched
/// where they stand, never expanded (`{a,b}` written 26 times would otherwise be 2^26 patterns). Compiling is
/// linear in the pattern; matching is a dynamic programme over pattern and path, linear in their product, for
/// anchored and unanchored patterns alike. Pure: no file system access. The SQL check of enqueued filters
/// (`ferry.filter_problem`) applies the same limits.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The longest pattern, in UTF-8 bytes.
    public static let maxLength = 1024
    /// The most `{` and `,` characters a pattern may hold (each brace group and each alternative costs one).
    public static let maxAlternatives = 256

    /// The pattern as written.
    public let text: String
    /// True for a pattern starting with `/`.
    public let anchored: Bool
    /// The compiled pattern: brace groups stay groups (`alternation`).
    let tokens: [Token]

    indirect enum Token: Sendable, Hashable {
        case literal(Unicode.Scalar)
        /// `?`
        case one
        /// `*`
        case star
        /// `**`
        case deepStar
        /// `[…]`: ranges (a single character is a range of one), negated with `!` or `^`.
        case set([ClosedRange<Unicode.Scalar>], negated: Bool)
        /// `{a,b}`: one of the token lists.
        case alternation([[Token]])
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
        try Self.checkBounds(text)
        anchored = body.hasPrefix("/")
        if anchored { body = body.dropFirst() }
        // A directory pattern matches what lies below the directory.
        var expanded = String(body)
        if expanded.hasSuffix("/") && !expanded.hasSuffix("\\/") { expanded += "**" }
        guard !expanded.isEmpty else {
            throw SyntaxError(problem: "the pattern / matches nothing", fix: "write /** for everything")
        }
        tokens = try Self.compile(expanded)
    }

    /// Refuses a pattern over the limits before any work is done on it.
    static func checkBounds(_ text: String) throws(SyntaxError) {
        let length = text.utf8.count
        guard length <= maxLength else {
            throw SyntaxError(
                problem: "the pattern is \(length) bytes long, more than \(maxLength)",
                fix: "shorten it, or split it into several rules")
        }
        let alternatives = text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "{") || $1 == UInt8(ascii: ",") ? 1 : 0) }
        guard alternatives <= maxAlternatives else {
            throw SyntaxError(
                problem: "the pattern holds \(alternatives) braces and commas, more than \(maxAlternatives)",
                fix: "use fewer alternatives, or split them into several rules")
        }
    }

    /// True when the pattern matches `path` (relative to the tree's root, `/`-separated, no leading `/`).
    public func matches(_ path: String) -> Bool {
        let scalars = Array(path.unicodeScalars)
        var accepted = [Bool](repeating: false, count: scalars.count + 1)
        accepted[scalars.count] = true
        // `starts[j]`: the tokens match all of path[j...]. One pass answers the whole path and every tail.
        let starts = Self.run(tokens, on: scalars, then: accepted)
        if starts[0] { return true }
        guard !anchored else { return false }
        // Unanchored: a tail that starts at a path element.
        for index in scalars.indices where scalars[index] == "/" && starts[index + 1] { return true }
        return false
    }

    /// If this is a directory rule (`dir/**` or `dir/`), the pattern the directory's own path must match: a
    /// directory it matches can be left unread when the rule excludes.
    public var directoryPrefix: GlobPattern? {
        guard tokens.count >= 2, tokens[tokens.count - 1] == .deepStar, tokens[tokens.count - 2] == .literal("/"),
            !tokens.dropLast(2).isEmpty
        else { return nil }
        return GlobPattern(text: text, anchored: anchored, tokens: Array(tokens.dropLast(2)))
    }

    private init(text: String, anchored: Bool, tokens: [Token]) {
        self.text = text
        self.anchored = anchored
        self.tokens = tokens
    }

    // MARK: - Compiling

    /// The tokens of `text`, brace groups compiled in place: `a{b,c}d` is `a`, one of (`b` | `c`), `d`.
    static func compile(_ text: String) throws(SyntaxError) -> [Token] {
        let scalars = Array(text.unicodeScalars)
        var tokens = [Token]()
        var plain = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "\\":
                plain.append(scalars[index])
                if index + 1 < scalars.count { plain.append(scalars[index + 1]) }
                index += 2
                continue
            case "[":
                // A set is copied whole: braces and commas inside it are members, not alternatives.
                let end = setEnd(scalars, from: index)
                plain.append(contentsOf: scalars[index..<end])
                index = end
                continue
            case "{":
                tokens += try Self.tokens(of: String(plain))
                plain = String.UnicodeScalarView()
                let (alternatives, end) = try group(scalars, from: index, in: text)
                tokens.append(.alternation(try alternatives.map { alternative throws(SyntaxError) in try Self.tokens(of: alternative) }))
                index = end
                continue
            case "}":
                throw SyntaxError(problem: "} without { in \(text)", fix: "escape a literal brace as \\}")
            default:
                plain.append(scalars[index])
            }
            index += 1
        }
        tokens += try Self.tokens(of: String(plain))
        return tokens
    }

    /// The alternatives of the brace group opening at `start`, and the index after its `}`.
    static func group(_ scalars: [Unicode.Scalar], from start: Int, in text: String) throws(SyntaxError) -> ([String], Int) {
        var parts = [String]()
        var current = String.UnicodeScalarView()
        var position = start + 1
        while position < scalars.count {
            switch scalars[position] {
            case "\\" where position + 1 < scalars.count:
                current.append(scalars[position])
                current.append(scalars[position + 1])
                position += 2
                continue
            case "[":
                let end = setEnd(scalars, from: position)
                current.append(contentsOf: scalars[position..<end])
                position = end
                continue
            case "{":
                throw SyntaxError(problem: "nested { in \(text)", fix: "write alternatives without nesting, for example *.{jpg,png}")
            case ",":
                parts.append(String(current))
                current = String.UnicodeScalarView()
            case "}":
                parts.append(String(current))
                return (parts, position + 1)
            default:
                current.append(scalars[position])
            }
            position += 1
        }
        throw SyntaxError(problem: "{ without } in \(text)", fix: "close the alternatives with }, or escape a literal brace as \\{")
    }

    /// The index just after the set that opens at `start` (`[`), or the end of the text when it is not closed
    /// (``tokens(of:)`` then names the problem).
    static func setEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var position = start + 1
        if position < scalars.count && (scalars[position] == "!" || scalars[position] == "^") { position += 1 }
        var first = true
        while position < scalars.count && (scalars[position] != "]" || first) {
            first = false
            if scalars[position] == "\\" && position + 1 < scalars.count { position += 1 }
            position += 1
        }
        return min(position + 1, scalars.count)
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

    /// Runs `tokens` backwards over `path`: given `next[j]` ("what follows matches path[j...]"), answers `row[j]`
    /// ("the tokens, then what follows, match path[j...]"). A brace group is the union of its alternatives' runs, so
    /// the cost is the number of tokens (alternatives included) times the path's length.
    static func run(_ tokens: [Token], on path: [Unicode.Scalar], then following: [Bool]) -> [Bool] {
        let count = path.count
        var next = following
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
            case .alternation(let alternatives):
                for j in 0...count { row[j] = false }
                for alternative in alternatives {
                    let matched = run(alternative, on: path, then: next)
                    for j in 0...count where matched[j] { row[j] = true }
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
                    case .star, .deepStar, .alternation: fits = false
                    }
                    row[j] = fits && next[j + 1]
                }
            }
            swap(&row, &next)
        }
        return next
    }
}
