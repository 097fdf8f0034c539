import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

@Suite("job validation", .tags(.fast))
struct JobRequestValidationTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let facts = SourceFileFacts(size: 1234, modifiedNanoseconds: 1_700_000_000_123_456_789, device: 1, inode: 99)

    func validate(_ request: JobRequest, files: [String: Result<SourceFileFacts, SourceFileFacts.Problem>] = [:]) throws(ValidationIssue) -> JobSpec {
        try request.validated(
            jobID: UUID(), now: now, currentDirectory: "/home/me", inspectFile: { path in files[path] ?? .failure(.missing) },
            providers: ProviderRegistry.standard)
    }

    @Test("an upload into a folder keeps the file name and records size and mtime")
    func uploadIntoFolder() throws {
        let spec = try validate(
            JobRequest(kind: .upload, source: "pics/a b.jpg", to: "dropbox:photos:/Camera/2026/"),
            files: ["/home/me/pics/a b.jpg": .success(facts)])
        #expect(spec.source == "/home/me/pics/a b.jpg")
        #expect(spec.destination == "dropbox:photos:/Camera/2026/a b.jpg")
        #expect(spec.account == "photos")
        #expect(spec.bytesTotal == 1234)
        #expect(spec.details["mtime_ns"] == .int(1_700_000_000_123_456_789))
        #expect(spec.queue == "default" && spec.priority == 0 && spec.maxAttempts == 10)
    }

    @Test("a local-directory destination is percent-encoded and a URL fetch into a folder keeps the URL's name")
    func directoryAndFetch() throws {
        let upload = try validate(
            JobRequest(kind: .upload, source: "/data/x y.jpg", to: "file:///mnt/nas%20box/"),
            files: ["/data/x y.jpg": .success(facts)])
        #expect(upload.destination == "file:///mnt/nas%20box/x%20y.jpg")
        let fetch = try validate(JobRequest(kind: .fetch, source: "https://example.com/p.jpg?x=1", to: "in/"))
        #expect(fetch.destination == "/home/me/in/p.jpg")
        #expect(fetch.details["root"] == .string("/home/me/in/"))
        #expect(fetch.source == "https://example.com/p.jpg?x=1")
    }

    @Test("a fetch target of blanks is refused, not a file named with spaces in the working directory; file:///dir/ is that folder, not a relative path")
    func fetchTargetForms() throws {
        for blank in [" ", "   ", "\t"] {
            do {
                _ = try validate(JobRequest(kind: .fetch, source: "https://e.com/a.jpg", to: blank))
                Issue.record("'\(blank)' was accepted")
            } catch {
                #expect(error.field == "to" && error.problem.contains("blank"), "\(error)")
            }
        }
        let url = try validate(JobRequest(kind: .fetch, source: "https://e.com/a.jpg", to: "file:///srv/in%20box/"))
        #expect(url.destination == "/srv/in box/a.jpg")
        #expect(url.details["root"] == .string("/srv/in box/"))
        let file = try validate(JobRequest(kind: .fetch, source: "https://e.com/a.jpg", to: "FILE:///srv/b.jpg"))
        #expect(file.destination == "/srv/b.jpg")
        for refused in ["file://host/srv/", "file:srv/", "file:///srv/%zz/", "file:///srv/../etc/"] {
            do {
                _ = try validate(JobRequest(kind: .fetch, source: "https://e.com/a.jpg", to: refused))
                Issue.record("\(refused) was accepted")
            } catch {
                #expect(error.field == "to", "\(refused): \(error)")
            }
        }
    }

    @Test("a tree upload (a schedule's template) into a local folder inside the tree is refused; beside it, or to a provider, it is taken")
    func treeIntoItself() throws {
        let tree: [String: OptionValue] = ["tree": .json(.bool(true))]
        let folder: [String: Result<SourceFileFacts, SourceFileFacts.Problem>] = ["/data/pics": .failure(.notRegularFile(kind: "directory"))]
        for inside in ["/data/pics/backup/", "file:///data/pics/backup/", "file:///data/pics/", "/data/pics/./b/../c/", "pics/sub/"] {
            let request = JobRequest(kind: .upload, source: "/data/pics", to: inside, options: tree)
            do {
                _ = try request.validated(
                    jobID: UUID(), now: now, currentDirectory: "/data", inspectFile: { folder[$0] ?? .failure(.missing) },
                    providers: ProviderRegistry.standard)
                Issue.record("\(inside) was accepted")
            } catch {
                #expect(error.field == "to" && error.problem.contains("inside the folder being uploaded"), "\(inside): \(error)")
            }
        }
        for beside in ["/data/pics2/", "file:///data/backup/pics/", "dropbox:me:/data/pics/backup/"] {
            let spec = try JobRequest(kind: .upload, source: "/data/pics", to: beside, options: tree).validated(
                jobID: UUID(), now: now, currentDirectory: "/data", inspectFile: { folder[$0] ?? .failure(.missing) },
                providers: ProviderRegistry.standard)
            #expect(spec.source == "/data/pics/", "\(beside)")
        }
    }

    @Test("fetch options: checksum, Dropbox folder settings, Flickr size and limit; fan-out jobs get a batch")
    func fetchOptionsByProvider() throws {
        let hex = String(repeating: "AB", count: 32)
        let url = try validate(JobRequest(kind: .fetch, source: "https://e.com/a%20b.jpg", to: "/in/", options: givenOptions(sha256: hex)))
        #expect(url.destination == "/in/a b.jpg")
        #expect(url.details["sha256"] == .string(hex.lowercased()))
        #expect(url.batch == nil)

        let folder = try validate(JobRequest(
            kind: .fetch, source: "dropbox:acct:/Photos", to: "/srv/photos/",
            options: givenOptions(recursive: true, thumbnail: "w256h256", pageSize: 1000)))
        #expect(folder.destination == "/srv/photos/")
        #expect(folder.details["recursive"] == .bool(true))
        #expect(folder.details["thumbnail"] == .string("w256h256"))
        #expect(folder.details["page_size"] == .int(1000))
        #expect(folder.batch == folder.jobID.uuidString.lowercased(), "children need a batch to join")

        let flickr = try validate(JobRequest(
            kind: .fetch, source: "flickr:12345678@N00", to: "/srv/flickr", batch: "fl",
            options: givenOptions(size: "b", max: 50, account: "fk")))
        #expect(flickr.source == "flickr:12345678@N00")
        #expect(flickr.destination == "/srv/flickr/")
        #expect(flickr.account == "fk")
        #expect(flickr.details["size"] == .string("b") && flickr.details["max"] == .int(50))
        #expect(flickr.batch == "fl")
    }

    @Test("fetch options that do not fit the source are refused, naming the option", arguments: [
        (JobRequest(kind: .fetch, source: "https://e.com/a.jpg", to: "/in/", options: givenOptions(recursive: true)), "recursive"),
        (JobRequest(kind: .fetch, source: "https://e.com/a.jpg", to: "/in/", options: givenOptions(sha256: "abc")), "sha256"),
        (JobRequest(kind: .fetch, source: "https://e.com/", to: "/in/"), "to"),
        (JobRequest(kind: .fetch, source: "https://e.com/..%2F..%2Fetc%2Fpasswd", to: "/in/"), "to"),
        (JobRequest(kind: .fetch, source: "https://e.com/%00x", to: "/in/"), "to"),
        (JobRequest(kind: .fetch, source: "dropbox:a:/P", to: "/in/", options: givenOptions(thumbnail: "huge")), "thumbnail"),
        (JobRequest(kind: .fetch, source: "dropbox:a:/P", to: "/in/", options: givenOptions(pageSize: 5000)), "page_size"),
        (JobRequest(kind: .fetch, source: "dropbox:a:/P", to: "/in/", options: givenOptions(max: 3)), "max"),
        (JobRequest(kind: .fetch, source: "flickr:", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "flickr:bob/../x", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "flickr:bob", to: "/in/", options: givenOptions(size: "xl")), "size"),
        (JobRequest(kind: .fetch, source: "flickr:bob", to: "/in/", options: givenOptions(max: 0)), "max"),
        (JobRequest(kind: .fetch, source: "flickr:bob", to: "/in/", options: givenOptions(recursive: true)), "recursive"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", options: givenOptions(recursive: true)), "recursive"),
    ])
    func refusedFetchOptions(request: JobRequest, field: String) {
        let files: [String: Result<SourceFileFacts, SourceFileFacts.Problem>] = ["/f": .success(facts)]
        #expect(throws: ValidationIssue.self) { try validate(request, files: files) }
        do {
            _ = try validate(request, files: files)
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test("JSON lines carry fetch options and metadata")
    func jsonFetchOptions() throws {
        let request = try JobRequest(
            jsonLine: #"{"kind":"fetch","source":"flickr:u1","to":"/in/","size":"z","max":10,"account":"fk","metadata":{"title":"Sunset","likes":12}}"#,
            line: 1, optionNames: ProviderRegistry.standard.optionNames)
        #expect(request.options == givenOptions(size: "z", max: 10, account: "fk"))
        let wrongType = try JobRequest(
            jsonLine: #"{"kind":"fetch","source":"dropbox:a:/P","to":"/in/","recursive":"yes"}"#, line: 2,
            optionNames: ProviderRegistry.standard.optionNames)
        #expect {
            try validate(wrongType)
        } throws: { error in
            (error as? ValidationIssue)?.field == "recursive" && (error as? ValidationIssue)?.line == 2
        }
    }

    @Test("the enqueued payload carries everything the projection needs")
    func enqueuedPayload() throws {
        let spec = try validate(
            JobRequest(
                kind: .fetch, source: "dropbox:acct:/a.jpg", to: "/srv/", batch: "b", queue: "q", priority: 5,
                runAt: "+1h", maxAttempts: 3, idempotencyKey: "k", metadata: .object(["title": .string("T")])))
        let data = spec.enqueuedEventData
        #expect(data["kind"] == .string("fetch"))
        #expect(data["account"] == .string("acct"))
        #expect(data["run_at"] == .string(ScheduleTime.iso8601(now.addingTimeInterval(3600))))
        #expect(data["metadata"]?["title"] == .string("T"))
        #expect(data["key"] == .string("k"))
    }

    @Test("refused inputs name the field", arguments: [
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", queue: "Bad Queue"), "queue"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", priority: 101), "priority"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", maxAttempts: 0), "max_attempts"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", runAt: "soon"), "run_at"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", runAt: "+400d"), "run_at"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", idempotencyKey: ""), "key"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/", batch: "a\u{07}b"), "batch"),
        (JobRequest(kind: .upload, source: "/missing", to: "dropbox:a:/x/"), "source"),
        (JobRequest(kind: .upload, source: "/f", to: "s3://bucket/x"), "to"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:relative/"), "to"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox:a:/x/../y/"), "to"),
        (JobRequest(kind: .upload, source: "/f", to: "dropbox::/x/"), "to"),
        (JobRequest(kind: .upload, source: "/f", to: "file://host/x/"), "to"),
        (JobRequest(kind: .fetch, source: "ftp://example.com/x", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "https://user:pw@example.com/x", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "https:///x", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "https://example.com:99999/x", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "https://example.com/a b", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "https://example.com/x", to: "/in/\u{0}x"), "to"),
    ])
    func refused(request: JobRequest, field: String) {
        let files: [String: Result<SourceFileFacts, SourceFileFacts.Problem>] = ["/f": .success(facts)]
        #expect {
            try validate(request, files: files)
        } throws: { error in
            (error as? ValidationIssue)?.field == field
        }
    }

    @Test("secrets in URLs are never echoed in the message")
    func credentialsNotEchoed() {
        #expect {
            try validate(JobRequest(kind: .fetch, source: "https://bob:hunter2@example.com/x", to: "/in/"))
        } throws: { error in
            !String(describing: error).contains("hunter2")
        }
    }

    @Test("JSON Lines records: unknown fields, wrong types and missing fields name the line and field")
    func jsonLines() throws {
        let ok = try JobRequest(jsonLine: #"{"kind":"fetch","source":"https://e.com/a","to":"/in/","priority":3,"metadata":{"t":1}}"#, line: 4, optionNames: ProviderRegistry.standard.optionNames)
        #expect(ok.priority == 3 && ok.line == 4)
        let cases: [(String, String)] = [
            (#"{"kind":"upload","source":"/a","to":"/b","colour":"red"}"#, "colour"),
            (#"{"kind":"upload","source":"/a","to":"/b","priority":"high"}"#, "priority"),
            (#"{"kind":"upload","source":"/a","to":"/b","priority":1.5}"#, "priority"),
            (#"{"kind":"move","source":"/a","to":"/b"}"#, "kind"),
            (#"{"source":"/a","to":"/b"}"#, "kind"),
            (#"{"kind":"upload","to":"/b"}"#, "source"),
            (#"{"kind":"upload","source":"/a"}"#, "to"),
            (#"{"kind":"upload","source":"/a","to":"/b","metadata":[1]}"#, "metadata"),
            (#"["kind"]"#, "json"),
            (#"{"kind":"upload",}"#, "json"),
        ]
        for (text, field) in cases {
            #expect(throws: ValidationIssue.self) { try JobRequest(jsonLine: text, line: 7, optionNames: ProviderRegistry.standard.optionNames) }
            do throws(ValidationIssue) {
                _ = try JobRequest(jsonLine: text, line: 7, optionNames: ProviderRegistry.standard.optionNames)
            } catch {
                #expect(error.field == field, "\(text)")
                #expect(error.line == 7)
            }
        }
    }
}

/// Provider options as a JSON Lines record carries them.
func givenOptions(
    sha256: String? = nil, recursive: Bool? = nil, thumbnail: String? = nil, size: String? = nil, max: Int64? = nil,
    account: String? = nil, pageSize: Int64? = nil
) -> [String: OptionValue] {
    var options = [String: OptionValue]()
    if let sha256 { options["sha256"] = .json(.string(sha256)) }
    if let recursive { options["recursive"] = .json(.bool(recursive)) }
    if let thumbnail { options["thumbnail"] = .json(.string(thumbnail)) }
    if let size { options["size"] = .json(.string(size)) }
    if let max { options["max"] = .json(.int(max)) }
    if let account { options["account"] = .json(.string(account)) }
    if let pageSize { options["page_size"] = .json(.int(pageSize)) }
    return options
}
