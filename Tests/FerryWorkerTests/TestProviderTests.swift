import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryWorker
import Foundation
import Logging
import Testing

/// Adding a provider is a folder (`MemoryProvider/`: descriptor, typed details, handlers, account kind) plus
/// one registry line (below). Nothing else in Ferry changes, and every generic path picks it up.
@Suite("a provider added in one folder and one registry line", .tags(.fast))
struct TestProviderTests {
    /// The one line.
    let registry = ProviderRegistry(ProviderRegistry.standard.providers + [MemoryProvider()])

    func validate(_ request: JobRequest) throws(ValidationIssue) -> JobSpec {
        try request.validated(
            jobID: UUID(), now: Date(), currentDirectory: "/",
            inspectFile: { _ in .success(SourceFileFacts(size: 3, modifiedNanoseconds: 1, device: 1, inode: 1)) },
            providers: registry)
    }

    @Test("enqueue validation resolves its scheme and types its options into its details")
    func resolvedByEnqueueValidation() throws {
        let spec = try validate(JobRequest(
            kind: .upload, source: "/data/a.bin", to: "memory:box:/a",
            options: ["label": .commandLine("nightly"), "copies": .commandLine("2")]))
        #expect(spec.destination == "memory:box:/a")
        #expect(spec.account == "box" && spec.accountProvider == "memory")
        #expect(spec.details["label"] == .string("nightly") && spec.details["copies"] == .int(2))

        #expect {
            try validate(JobRequest(kind: .upload, source: "/data/a.bin", to: "memory:box:/a", options: ["copies": .json(.int(9))]))
        } throws: { error in
            (error as? ValidationIssue)?.field == "copies" && "\(error)".contains("from 1 to 3")
        }
        #expect {
            try validate(JobRequest(kind: .fetch, source: "memory:box:/a", to: "/in/"))
        } throws: { error in
            "\(error)".contains("Memory takes no fetches")
        }
        // JSON Lines take its options at the top level too, as for every provider.
        let line = try JobRequest(
            jsonLine: #"{"kind":"upload","source":"/a","to":"memory:box:/k","label":"x"}"#, line: 1, optionNames: registry.optionNames)
        #expect(try validate(line).details["label"] == .string("x"))
    }

    @Test("the help the CLI prints lists its options, from their declarations")
    func listedInHelp() {
        #expect(registry.optionsHelp.contains("  Memory uploads (memory:ACCOUNT:/key):"))
        #expect(registry.optionsHelp.contains("    copies=1…3  How many copies to keep. Default: 1."))
        #expect(registry.help(forOption: "label") == "Memory uploads: A tag kept with the stored copy.")
        #expect(registry.examples(for: .upload).contains("memory:ACCOUNT:/key"))
    }

    @Test("the worker finds its handler and its account kind through the descriptor")
    func workerSide() async throws {
        #expect(registry.accountProviderNames == ["dropbox", "flickr", "s3", "gdrive", "onedrive", "instagram", "memory"])
        let kind = try #require(registry.accountKind(of: "memory"))
        #expect(kind.inputs.map(\.flag) == ["--token-file"])
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        // Shut the client down whatever happens: run everything that needs it first, check after.
        var prepared: (account: NewAccount, note: String)?
        do {
            prepared = try await kind.prepare(
                AccountInputs(name: "box", provider: "memory", secrets: ["token": "t0ken"]), httpClient: http,
                logger: Logger(label: "test"))
        } catch {
            Issue.record("prepare refused: \(error)")
        }
        let environment = ProviderEnvironment(httpClient: http, tokens: nil, chunkSize: 1 << 20)
        let handlers = registry.provider(for: "memory:box:/a") as? any ProviderHandlers
        let upload = handlers?.handler(for: .upload, environment: environment)?.name
        let fetch = handlers?.handler(for: .fetch, environment: environment)
        try await http.shutdown()

        #expect(prepared?.account.secrets == ["token": "t0ken"] && prepared?.account.linkedWithoutLogin == true)
        #expect(prepared?.note == "added box (memory)")
        #expect(upload == "memory_upload" && fetch == nil)
    }
}
