import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

@Suite("provider options and the registry", .tags(.fast))
struct ProviderOptionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let facts = SourceFileFacts(size: 10, modifiedNanoseconds: 1, device: 1, inode: 2)

    func validate(_ request: JobRequest) throws(ValidationIssue) -> JobSpec {
        let facts = self.facts
        return try request.validated(
            jobID: UUID(), now: now, currentDirectory: "/", inspectFile: { _ in .success(facts) },
            providers: ProviderRegistry.standard)
    }

    @Test("Dropbox upload options become typed details beside the source facts; command-line text is typed")
    func dropboxUploadOptions() throws {
        let spec = try validate(JobRequest(
            kind: .upload, source: "/data/backup.tar", to: "dropbox:work:/Backups/",
            options: ["mode": .commandLine("overwrite"), "autorename": .commandLine("false"), "mute": .commandLine("true")]))
        #expect(spec.destination == "dropbox:work:/Backups/backup.tar")
        #expect(spec.details["mode"] == .string("overwrite"))
        #expect(spec.details["autorename"] == .bool(false))
        #expect(spec.details["mute"] == .bool(true))
        #expect(spec.details["size"] == .int(10), "the generic source facts stay")
        #expect(spec.accountProvider == "dropbox")

        let plain = try validate(JobRequest(kind: .upload, source: "/data/a.jpg", to: "dropbox:work:/P/"))
        #expect(plain.details["mode"] == nil, "options that are not given are not recorded")
    }

    @Test("JSON Lines take options in \"options\" or at the top level, never both")
    func jsonOptions() throws {
        let names = ProviderRegistry.standard.optionNames
        let nested = try JobRequest(
            jsonLine: #"{"kind":"upload","source":"/a","to":"dropbox:w:/B/","options":{"mode":"overwrite","mute":true}}"#,
            line: 3, optionNames: names)
        #expect(nested.options == ["mode": .json(.string("overwrite")), "mute": .json(.bool(true))])
        let top = try JobRequest(jsonLine: #"{"kind":"upload","source":"/a","to":"dropbox:w:/B/","mode":"overwrite"}"#, line: 4, optionNames: names)
        #expect(try validate(top).details["mode"] == .string("overwrite"))
        #expect {
            try JobRequest(jsonLine: #"{"kind":"upload","source":"/a","to":"dropbox:w:/B/","mode":"add","options":{"mode":"overwrite"}}"#, line: 5, optionNames: names)
        } throws: { error in
            (error as? ValidationIssue)?.field == "mode" && (error as? ValidationIssue)?.line == 5
        }
        #expect {
            try JobRequest(jsonLine: #"{"kind":"upload","source":"/a","to":"dropbox:w:/B/","options":["mode"]}"#, line: 6, optionNames: names)
        } throws: { error in
            (error as? ValidationIssue)?.field == "options"
        }
    }

    @Test("an option the provider does not take, or of the wrong type, is refused naming it and the provider's options", arguments: [
        (JobRequest(kind: .upload, source: "/a", to: "dropbox:w:/B/", options: ["mode": .commandLine("replace")]), "mode", "unknown value 'replace'"),
        (JobRequest(kind: .upload, source: "/a", to: "dropbox:w:/B/", options: ["mute": .json(.string("yes"))]), "mute", "true or false"),
        (JobRequest(kind: .upload, source: "/a", to: "dropbox:w:/B/", options: ["colour": .commandLine("red")]), "colour", "autorename, existing, filter, if_changed, mode, mute, sync"),
        (JobRequest(kind: .upload, source: "/a", to: "file:///nas/", options: ["mode": .commandLine("overwrite")]), "mode", "local directory uploads: existing, filter, if_changed, sync"),
        (JobRequest(kind: .fetch, source: "https://example.com/a.jpg", to: "/in/", options: ["if_changed": .json(.bool(true))]), "if_changed", "options for URL fetches: existing, filter, sha256"),
        (JobRequest(kind: .fetch, source: "dropbox:w:/P", to: "/in/", options: ["mode": .commandLine("overwrite")]), "mode", "Dropbox fetches"),
        (JobRequest(kind: .fetch, source: "flickr:u", to: "/in/", options: ["max": .commandLine("ten")]), "max", "integer"),
        (JobRequest(kind: .fetch, source: "flickr:u", to: "/in/", options: ["max": .json(.int(0))]), "max", "from 1 to 1000000"),
        (JobRequest(kind: .upload, source: "/a", to: "flickr:u"), "to", "Flickr takes no uploads"),
    ])
    func refused(request: JobRequest, field: String, words: String) {
        #expect {
            try validate(request)
        } throws: { error in
            guard let issue = error as? ValidationIssue else { return false }
            return issue.field == field && issue.description.contains(words)
        }
    }

    @Test("the registry finds providers by scheme, case-insensitively")
    func registry() {
        let registry = ProviderRegistry.standard
        #expect(registry.provider(for: "HTTPS://example.com/a")?.name == "web")
        #expect(registry.provider(for: "dropbox:a:/x")?.name == "dropbox")
        #expect(registry.provider(for: "/local/path") == nil)
        #expect(registry.provider(for: "C:/windows") == nil)
        #expect(EndpointSyntax.scheme(of: "s3:acct:bucket/key") == "s3")
        #expect(EndpointSyntax.scheme(of: "no scheme here") == nil)
    }

    @Test("the catalog ferry migrate records lists, per scheme and role, exactly the options enqueue validation takes")
    func catalog() {
        let registry = ProviderRegistry.standard
        func names(_ scheme: String, _ role: ProviderOptionCatalog.Role) -> Set<String> {
            Set(registry.optionCatalog.entries.filter { $0.scheme == scheme && $0.role == role }.map(\.option.name))
        }
        #expect(names("dropbox", .upload) == ["mode", "autorename", "mute", "if_changed", "tree", "existing", "filter", "sync"])
        #expect(names("dropbox", .fetch) == ["sha256", "recursive", "thumbnail", "page_size", "existing", "filter"])
        #expect(names("dropbox", .copy) == ["mode", "autorename", "mute", "if_changed", "filter", "existing", "sync"])
        #expect(names("s3", .copy) == ["storage_class", "content_type", "if_changed", "filter", "existing", "sync"])
        #expect(names("http", .fetch) == ["sha256", "existing", "filter"] && names("https", .fetch) == names("http", .fetch))
        #expect(names("file", .upload) == ["if_changed", "tree", "existing", "filter", "sync"] && names("file", .fetch).isEmpty)
        #expect(names("flickr", .fetch) == ["size", "max", "account", "existing", "filter"] && names("flickr", .upload).isEmpty)
        // Every declared option's type travels: a choice its words, an integer its range.
        let pageSize = registry.optionCatalog.json.arrayValue?.first {
            $0["scheme"] == .string("dropbox") && $0["kind"] == .string("fetch") && $0["name"] == .string("page_size")
        }
        #expect(pageSize?["type"] == .string("integer") && pageSize?["min"] == .int(1) && pageSize?["max"] == .int(2000))
    }
}
