import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

@Suite("S3 endpoints and options", .tags(.fast))
struct S3ProviderTests {
    let registry = ProviderRegistry([S3Provider()])
    let facts = SourceFileFacts(size: 10, modifiedNanoseconds: 1, device: 1, inode: 2)

    func validate(_ request: JobRequest) throws(ValidationIssue) -> JobSpec {
        let facts = self.facts
        return try request.validated(
            jobID: UUID(), now: Date(), currentDirectory: "/", inspectFile: { _ in .success(facts) }, providers: registry)
    }

    @Test("uploads into a prefix keep the file name; options become typed details")
    func uploads() throws {
        let spec = try validate(JobRequest(
            kind: .upload, source: "/data/IMG 1.jpg", to: "s3:archive:photos-2026/camera/",
            options: ["storage_class": .commandLine("STANDARD_IA"), "content_type": .commandLine("image/jpeg")]))
        #expect(spec.destination == "s3:archive:photos-2026/camera/IMG 1.jpg")
        #expect(spec.account == "archive" && spec.accountProvider == "s3")
        #expect(spec.details["storage_class"] == .string("STANDARD_IA"))
        #expect(spec.details["content_type"] == .string("image/jpeg"))
        let named = try validate(JobRequest(kind: .upload, source: "/data/a.jpg", to: "s3:archive:photos-2026/b.jpg"))
        #expect(named.destination == "s3:archive:photos-2026/b.jpg")
    }

    @Test("a prefix fetch fans out into a folder; an object fetch into a folder keeps the key's last part")
    func fetches() throws {
        let prefix = try validate(JobRequest(
            kind: .fetch, source: "s3:archive:photos-2026/camera/", to: "/srv/camera",
            options: ["recursive": .json(.bool(true)), "page_size": .json(.int(500))]))
        #expect(prefix.destination == "/srv/camera/")
        #expect(prefix.batch == prefix.jobID.uuidString.lowercased(), "children need a batch")
        #expect(prefix.details["root"] == .string("/srv/camera/") && prefix.details["page_size"] == .int(500))
        let object = try validate(JobRequest(kind: .fetch, source: "s3:archive:photos-2026/camera/a.jpg", to: "/srv/in/"))
        #expect(object.destination == "/srv/in/a.jpg" && object.batch == nil)
        #expect(object.details["root"] == .string("/srv/in/"))
    }

    @Test("bad locations and misplaced options are refused, naming the field", arguments: [
        (JobRequest(kind: .upload, source: "/a", to: "s3:archive"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:archive:bucket"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:archive:Bucket/x"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:archive:ab/x"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:archive:192.168.1.1/x"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:archive:bucket//x"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:bad name:bucket/x"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:a:bucket/" + String(repeating: "k", count: 1025)), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:a:bucket/x", options: ["storage_class": .commandLine("COLD")]), "storage_class"),
        (JobRequest(kind: .upload, source: "/a", to: "s3:a:bucket/x", options: ["recursive": .commandLine("true")]), "recursive"),
        (JobRequest(kind: .fetch, source: "s3:a:bucket/x.jpg", to: "/in/", options: ["recursive": .commandLine("true")]), "recursive"),
        (JobRequest(kind: .fetch, source: "s3:a:bucket/dir/", to: "/in/", options: ["sha256": .commandLine(String(repeating: "a", count: 64))]), "sha256"),
        (JobRequest(kind: .fetch, source: "s3:a:bucket/dir/..", to: "/in/"), "to"),
    ])
    func refused(request: JobRequest, field: String) {
        #expect {
            try validate(request)
        } throws: { error in
            (error as? ValidationIssue)?.field == field
        }
    }
}
