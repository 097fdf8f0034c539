import FerryCore
import Foundation
import Testing

@Suite("job validation")
struct JobRequestValidationTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let facts = SourceFileFacts(size: 1234, modifiedNanoseconds: 1_700_000_000_123_456_789, device: 1, inode: 99)

    func validate(_ request: JobRequest, files: [String: Result<SourceFileFacts, SourceFileFacts.Problem>] = [:]) throws(ValidationIssue) -> JobSpec {
        try request.validated(jobID: UUID(), now: now, currentDirectory: "/home/me") { path in
            files[path] ?? .failure(.missing)
        }
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

    @Test("a local-directory destination is percent-encoded and fetch keeps a folder target")
    func directoryAndFetch() throws {
        let upload = try validate(
            JobRequest(kind: .upload, source: "/data/x y.jpg", to: "file:///mnt/nas%20box/"),
            files: ["/data/x y.jpg": .success(facts)])
        #expect(upload.destination == "file:///mnt/nas%20box/x%20y.jpg")
        let fetch = try validate(JobRequest(kind: .fetch, source: "https://example.com/p.jpg?x=1", to: "in/"))
        #expect(fetch.destination == "/home/me/in/")
        #expect(fetch.source == "https://example.com/p.jpg?x=1")
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
        let ok = try JobRequest(jsonLine: #"{"kind":"fetch","source":"https://e.com/a","to":"/in/","priority":3,"metadata":{"t":1}}"#, line: 4)
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
            #expect(throws: ValidationIssue.self) { try JobRequest(jsonLine: text, line: 7) }
            do throws(ValidationIssue) {
                _ = try JobRequest(jsonLine: text, line: 7)
            } catch {
                #expect(error.field == field, "\(text)")
                #expect(error.line == 7)
            }
        }
    }
}
