import Crypto
import Foundation

/// What a failure is, without what it happened to: the error code (`http_not_found` of
/// `http_not_found: GET https://… answered 404`) and the message with URLs, absolute paths, UUIDs, long numbers,
/// long hex strings and quoted names replaced by placeholders. Thirty photos that each failed with a 404 on their own
/// URL share one signature, so the failed page shows one group of 30.
///
/// Pure and cheap (one pass over the characters, no regular expressions): the page normalizes thousands of
/// messages per load.
struct FailureSignature: Hashable, Sendable {
    /// The error's code, or empty when the message does not start with one (`code: message`).
    var code: String
    /// The message after the code, normalized.
    var message: String

    /// Messages longer than this are cut: a group key stays small whatever a provider answered.
    static let maxMessageLength = 300

    init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The signature of a `last_error` (nil: "no error recorded").
    init(error: String?) {
        guard let error, !error.isEmpty else {
            self.init(code: "", message: "(no error recorded)")
            return
        }
        let (code, rest) = Self.split(error)
        var message = Self.normalize(rest)
        if message.count > Self.maxMessageLength { message = String(message.prefix(Self.maxMessageLength)) + "…" }
        self.init(code: code, message: message)
    }

    /// `code: message` as shown to people.
    var text: String { code.isEmpty ? message : "\(code): \(message)" }

    /// A short stable id for the group, for its address (`/failed/groups/ID/retry`).
    var id: String {
        SHA256.hash(data: Array((code + "\u{0}" + message).utf8)).prefix(8)
            .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Splits off a leading `code: ` (lowercase letters, digits and `_`, starting with a letter, as `JobFailure`
    /// writes them).
    static func split(_ error: String) -> (code: String, rest: String) {
        guard let colon = error.firstIndex(of: ":") else { return ("", error) }
        let code = error[..<colon]
        let valid = !code.isEmpty && code.count <= 64 && code.first!.isASCII && code.first!.isLetter
            && code.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" }
        guard valid else { return ("", error) }
        let rest = error[error.index(after: colon)...]
        return (String(code), String(rest.drop { $0 == " " }))
    }

    /// Replaces the parts of a message that differ between jobs failing for the same reason.
    static func normalize(_ text: String) -> String {
        let chars = Array(text)
        var out = ""
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if char.isWhitespace {
                if !out.isEmpty && out.last != " " { out.append(" ") }
                index += 1
                continue
            }
            // A quoted name: an opening quote at the start of a word, closed before the end of the message.
            if let close = closingQuote(char), index == 0 || isWordStart(chars[index - 1]),
               let end = chars[(index + 1)...].firstIndex(of: close), end > index + 1 {
                let after = end + 1
                if after == chars.count || !chars[after].isLetter {
                    out.append(char)
                    out += "<name>"
                    out.append(close)
                    index = after
                    continue
                }
            }
            var end = index
            while end < chars.count && !chars[end].isWhitespace { end += 1 }
            out += normalizeWord(chars[index..<end])
            index = end
        }
        if out.last == " " { out.removeLast() }
        return out
    }

    private static func closingQuote(_ char: Character) -> Character? {
        switch char {
        case "'": "'"
        case "\"": "\""
        case "`": "`"
        case "‘": "’"
        case "“": "”"
        default: nil
        }
    }

    private static func isWordStart(_ previous: Character) -> Bool {
        previous.isWhitespace || "([{=:,".contains(previous)
    }

    /// One whitespace-delimited word: a URL or an absolute path becomes one placeholder (its surrounding
    /// punctuation kept); inside other words, UUIDs, long numbers and long hex strings do.
    private static func normalizeWord(_ word: ArraySlice<Character>) -> String {
        var lead = word.startIndex
        while lead < word.endIndex && "([{<\"'".contains(word[lead]) { lead += 1 }
        var tail = word.endIndex
        while tail > lead && ")]}>\"',.;:!?".contains(word[tail - 1]) { tail -= 1 }
        let prefix = String(word[word.startIndex..<lead])
        let suffix = String(word[tail..<word.endIndex])
        let core = word[lead..<tail]
        if let scheme = urlStart(core) {
            return prefix + normalizeIDs(core[core.startIndex..<scheme]) + "<url>" + suffix
        }
        if core.count > 1, core.first == "/" || (core.first == "~" && core.dropFirst().first == "/") {
            return prefix + "<path>" + suffix
        }
        return prefix + normalizeIDs(core) + suffix
    }

    /// Where a `scheme://` starts inside `core`, if it holds one.
    private static func urlStart(_ core: ArraySlice<Character>) -> Int? {
        var index = core.startIndex
        while index + 2 < core.endIndex {
            if core[index] == ":" && core[index + 1] == "/" && core[index + 2] == "/" {
                var start = index
                while start > core.startIndex && (core[start - 1].isASCII && (core[start - 1].isLetter || core[start - 1].isNumber || "+-.".contains(core[start - 1]))) {
                    start -= 1
                }
                return start < index ? start : nil
            }
            index += 1
        }
        return nil
    }

    /// Replaces runs of hex digits and dashes that are UUIDs (`<id>`), runs of 5 or more digits (`<n>`: sizes,
    /// offsets, ids; short numbers such as HTTP statuses stay) and hex strings of 16 or more with a digit (`<hex>`).
    private static func normalizeIDs(_ core: ArraySlice<Character>) -> String {
        var out = ""
        var index = core.startIndex
        while index < core.endIndex {
            let char = core[index]
            guard char.isHexDigit, char.isASCII, index == core.startIndex || !isAlphanumeric(core[index - 1]) else {
                out.append(char)
                index += 1
                continue
            }
            var end = index
            while end < core.endIndex && ((core[end].isHexDigit && core[end].isASCII) || core[end] == "-") { end += 1 }
            // Only whole tokens: "abc123def…" inside a longer word is left alone.
            if end < core.endIndex && isAlphanumeric(core[end]) {
                while index < core.endIndex && isAlphanumeric(core[index]) {
                    out.append(core[index])
                    index += 1
                }
                continue
            }
            var run = core[index..<end]
            while run.last == "-" { run = run.dropLast() }
            let text = String(run)
            if isUUID(text) {
                out += "<id>"
            } else if !text.contains("-"), text.allSatisfy(\.isNumber), text.count >= 5 {
                out += "<n>"
            } else if !text.contains("-"), text.count >= 16, text.contains(where: \.isNumber) {
                out += "<hex>"
            } else {
                out += text
            }
            index = run.endIndex
        }
        return out
    }

    private static func isAlphanumeric(_ char: Character) -> Bool { char.isLetter || char.isNumber || char == "_" }

    private static func isUUID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12] && parts.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
