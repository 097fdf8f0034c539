import FerryProviders
import FerryTestSupport
import Foundation
import Testing

/// The provider seam holds: shared code (the worker outside `Providers/NAME/`, the store, the dashboard, the client,
/// the shared parts of the descriptors, the SQL definitions) names no provider. What it needs from one, it reads
/// from the provider's declared capabilities; a new service is its own folders plus one registry line.
@Suite(.tags(.fast))
struct ProviderSeamTests {
    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Words that name a provider: every registered provider's name and the first word of its display name, less
    /// the plain words some providers are named by (`web`, `file`), which shared code uses in their plain sense.
    static var providerWords: [String] {
        let plain: Set<String> = ["web", "url", "file", "local", "memory"]
        var words = Set<String>()
        for provider in ProviderRegistry.standard.providers {
            words.insert(provider.name.lowercased())
            if let first = provider.displayName.split(separator: " ").first { words.insert(first.lowercased()) }
        }
        return words.subtracting(plain).sorted()
    }

    /// The shared files: folders whose code may name no provider, with the provider folders below them left out.
    static func sharedFiles() throws -> [String] {
        let manager = FileManager.default
        var files = [String]()
        let shared = [
            "Sources/FerryWorker", "Sources/FerryStore", "Sources/FerryDashboard", "Sources/FerryClient", "Sources/FerryProviders",
            // The listing commands (ls, lsf, size, check) reach every provider through the listing capability.
            "Sources/ferry/Listing",
        ]
        for folder in shared {
            let base = root.appendingPathComponent(folder).path
            guard let walker = manager.enumerator(atPath: base) else { continue }
            while let relative = walker.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                let parts = relative.split(separator: "/")
                // A provider's own folder: FerryWorker/Providers/NAME/…, FerryProviders/NAME/… (Copy/ is shared).
                if folder == "Sources/FerryWorker", parts.count > 2, parts[0] == "Providers" { continue }
                if folder == "Sources/FerryProviders", parts.count > 1, parts[0] != "Copy" { continue }
                // The registry's list is the one line a provider adds there.
                if folder == "Sources/FerryProviders", relative == "ProviderRegistry.swift" { continue }
                files.append(folder + "/" + relative)
            }
        }
        let definitions = root.appendingPathComponent("migrations/definitions").path
        for name in try manager.contentsOfDirectory(atPath: definitions) where name.hasSuffix(".sql") {
            files.append("migrations/definitions/" + name)
        }
        return files.sorted()
    }

    /// The code of one line: comments are prose and may give examples; code and messages may not name a provider.
    static func code(of line: Substring, sql: Bool) -> String {
        if sql { return String(line.split(separator: "--", maxSplits: 1, omittingEmptySubsequences: false).first ?? "") }
        if line.drop(while: { $0 == " " }).hasPrefix("//") { return "" }
        if let comment = line.range(of: " // ") { return String(line[..<comment.lowerBound]) }
        return String(line)
    }

    /// Whether `code` names `word` as a word of its own or the start of an identifier (`DropboxLocation`).
    static func names(_ code: String, _ word: String) -> Bool {
        let text = code.lowercased()
        var start = text.startIndex
        while let found = text.range(of: word, range: start..<text.endIndex) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            let joinedBefore = before.map { $0.isLetter || $0.isNumber } ?? false
            let joinedAfter = after.map { $0.isNumber } ?? false
            if !joinedBefore && !joinedAfter { return true }
            start = found.upperBound
        }
        return false
    }

    @Test func sharedCodeNamesNoProvider() throws {
        let words = Self.providerWords
        #expect(words.contains("dropbox") && words.contains("s3"), "the registry's providers are the words looked for")
        let files = try Self.sharedFiles()
        #expect(files.count > 150, "the shared files were found (\(files.count))")
        var found = [String]()
        for file in files {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = Self.code(of: line, sql: file.hasSuffix(".sql"))
                for word in words where Self.names(code, word) {
                    found.append("\(file):\(number + 1) names \(word): \(code.trimmingCharacters(in: .whitespaces).prefix(120))")
                }
            }
        }
        #expect(found.isEmpty, "shared code names a provider; declare a capability instead:\n\(found.joined(separator: "\n"))")
    }

    @Test func theCheckFindsAProviderInCode() {
        #expect(Self.names("case \"dropbox\": break", "dropbox"))
        #expect(Self.names("let location = try S3Location(job: job.source)", "s3"))
        #expect(Self.names("if destination.hasPrefix(\"s3:\")", "s3"))
        #expect(!Self.names("let sha3 = 1", "s3"))
        #expect(Self.code(of: "    /// a Dropbox file", sql: false).isEmpty)
        #expect(Self.code(of: "x := 1; -- dropbox", sql: true) == "x := 1; ")
        #expect(Self.code(of: "let url = \"https://x\" // dropbox", sql: false) == "let url = \"https://x\"")
    }
}
