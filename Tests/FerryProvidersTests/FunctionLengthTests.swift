import FerryTestSupport
import Foundation
import Testing

/// No function over 100 lines (the project's standard), as a ratchet: the functions that were longer when this test
/// came are listed and may only shrink off the list; a new long function fails here, naming itself.
@Suite(.tags(.fast))
struct FunctionLengthTests {
    static let limit = 100

    /// `file: first words of the declaration` of the functions longer than the limit when the ratchet came. Remove an
    /// entry once its function is split; never add one.
    static let grandfathered: Set<String> = [
    ]

    /// Each function (or initializer) of `text` longer than `limit` lines: its first line, trimmed, and its length.
    /// Braces are counted outside string literals and comments, which is enough for this code base's style.
    static func longFunctions(in text: String) -> [(declaration: String, lines: Int)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found = [(String, Int)]()
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            let words = trimmed.split(separator: " ").map(String.init)
            let declares = words.contains { $0 == "func" || $0.hasPrefix("init(") || $0.hasPrefix("init?(") } && !trimmed.hasPrefix("//")
            guard declares else {
                index += 1
                continue
            }
            var depth = 0
            var opened = false
            var end = index
            scan: while end < lines.count {
                var inString = false
                var previous: Character = " "
                for character in lines[end] {
                    if character == "\"" && previous != "\\" { inString.toggle() }
                    if !inString && character == "/" && previous == "/" { break }
                    if !inString && character == "{" { depth += 1; opened = true }
                    if !inString && character == "}" { depth -= 1 }
                    previous = character
                }
                // A protocol requirement has no body: its line ends without one.
                if !opened && end == index && !lines[end].contains("(") { break scan }
                if opened && depth <= 0 { break scan }
                if !opened && end > index + 8 { break scan }
                end += 1
            }
            let length = end - index + 1
            if opened && length > limit { found.append((trimmed, length)) }
            index = opened ? end + 1 : index + 1
        }
        return found
    }

    @Test("no new function is longer than 100 lines; the grandfathered ones are still there to split")
    func functionLengths() throws {
        var offenders = [String]()
        var stillLong = Set<String>()
        let base = ProviderSeamTests.root.appendingPathComponent("Sources").path
        let walker = try #require(FileManager.default.enumerator(atPath: base))
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: base + "/" + relative, encoding: .utf8)
            for (declaration, lines) in Self.longFunctions(in: text) {
                let file = "Sources/" + relative
                let matched = Self.grandfathered.first { "\(file): \(declaration)".hasPrefix($0) }
                if let matched { stillLong.insert(matched) } else { offenders.append("\(file): \(declaration) (\(lines) lines)") }
            }
        }
        #expect(offenders.isEmpty, "split these functions (at most \(Self.limit) lines): \(offenders)")
        let split = Self.grandfathered.subtracting(stillLong)
        #expect(split.isEmpty, "these are no longer over \(Self.limit) lines: take them off FunctionLengthTests.grandfathered: \(split.sorted())")
    }

    @Test("the counter sees a long function, and not a short one or a protocol requirement")
    func counterWorks() {
        let long = "struct A {\n    func big() {\n" + String(repeating: "        let x = \"{\"\n", count: 120) + "    }\n    func small() { }\n}\n"
        #expect(Self.longFunctions(in: long).map(\.declaration) == ["func big() {"])
        #expect(Self.longFunctions(in: "protocol P {\n    func f() async throws\n}\n").isEmpty)
    }
}
