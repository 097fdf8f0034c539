import FerryCore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

/// A URL fetch onto a file already at its target (`--ignore-existing`, `--immutable`, the default replace): a real
/// `Worker` in process running the registry's web fetch handler against a dev server in process, over the memory
/// store (`WebFetchHarness`). The command line's refusal of both flags at once is `ReplaceChangedTests`'.
@Suite("a URL fetch onto an existing file", .tags(.fast))
struct ExistingURLFetchTests {
    @Test("ignore keeps a local file and downloads nothing; immutable fails on different bytes and keeps the same; replace replaces")
    func urlFetch() async throws {
        let dir = try temporaryFolder("existing-url")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await WebFetchHarness.run(root: dir) { web in
            let target = dir + "/a.bin"
            let remote = Data(WebFetchHarness.bytes(5000, seed: 3))
            var served = false
            func run(_ existing: String?) async throws -> MemoryJob {
                let options = existing.map { ["existing": OptionValue.commandLine($0)] } ?? [:]
                let id = try web.fetch("f/a.bin", bytes: served ? nil : Array(remote), to: target, options: options, maxAttempts: 1)
                served = true
                return try await web.harness.settle([id])[0]
            }
            let first = try await run(nil)
            #expect(first.state == .succeeded && first.result?["skipped"] == nil, "\(first)")
            #expect(FileManager.default.contents(atPath: target) == remote)
            let local = Data("edited here".utf8)
            try local.write(to: URL(fileURLWithPath: target))

            let ignored = try await run("ignore")
            #expect(ignored.state == .succeeded && ignored.result?["skipped"] == .string("exists"), "\(ignored)")
            #expect(FileManager.default.contents(atPath: target) == local, "left as it was")
            let immutable = try await run("immutable")
            #expect(immutable.state == .failed)
            #expect(immutable.lastError?.contains("exists with different content") == true, "\(immutable.lastError ?? "")")
            #expect(FileManager.default.contents(atPath: target) == local, "never replaced")
            try remote.write(to: URL(fileURLWithPath: target))
            let same = try await run("immutable")
            #expect(same.state == .succeeded && same.result?["skipped"] == nil, "the same bytes are kept: \(same)")
            try local.write(to: URL(fileURLWithPath: target))
            let replaced = try await run(nil)
            #expect(replaced.state == .succeeded && replaced.result?["skipped"] == nil, "\(replaced)")
            #expect(FileManager.default.contents(atPath: target) == remote, "replaced by default")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.bin"], "no temporary file left")
        }
    }
}
