import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

@Suite("Google Drive endpoints and options", .tags(.fast))
struct GoogleDriveProviderTests {
    let registry = ProviderRegistry([GoogleDriveProvider()])
    let facts = SourceFileFacts(size: 10, modifiedNanoseconds: 1, device: 1, inode: 2)

    func validate(_ request: JobRequest) throws(ValidationIssue) -> JobSpec {
        let facts = self.facts
        return try request.validated(
            jobID: UUID(), now: Date(), currentDirectory: "/", inspectFile: { _ in .success(facts) }, providers: registry)
    }

    @Test("uploads into a folder keep the file name; mode and if_changed become typed details")
    func uploads() throws {
        let spec = try validate(JobRequest(
            kind: .upload, source: "/data/IMG 1.jpg", to: "gdrive:me:/Backup/2025/",
            options: ["mode": .commandLine("overwrite"), "if_changed": .json(.bool(true))]))
        #expect(spec.destination == "gdrive:me:/Backup/2025/IMG 1.jpg")
        #expect(spec.account == "me" && spec.accountProvider == "gdrive")
        #expect(spec.details["mode"] == .string("overwrite") && spec.details["if_changed"] == .bool(true))
        let named = try validate(JobRequest(kind: .upload, source: "/data/a.jpg", to: #"gdrive:me:/it's \ odd/b.jpg"#))
        #expect(named.destination == #"gdrive:me:/it's \ odd/b.jpg"#, "quotes and backslashes are plain characters of Drive names")
        #expect(named.details["mode"] == nil)
    }

    @Test("fetches by path or id fan out; export, recursive, page_size and sha256 become typed details")
    func fetches() throws {
        let folder = try validate(JobRequest(
            kind: .fetch, source: "gdrive:me:/Docs/", to: "/srv/docs",
            options: ["export": .commandLine("pdf"), "recursive": .json(.bool(true)), "page_size": .json(.int(200))]))
        #expect(folder.source == "gdrive:me:/Docs/" && folder.destination == "/srv/docs")
        #expect(folder.batch != nil, "children need a batch")
        #expect(folder.details["export"] == .string("pdf") && folder.details["recursive"] == .bool(true) && folder.details["page_size"] == .int(200))
        #expect(folder.details["root"] == .string("/srv/"))
        let byID = try validate(JobRequest(kind: .fetch, source: "gdrive:me:id:1AbC-d_9", to: "/srv/in/"))
        #expect(byID.source == "gdrive:me:id:1AbC-d_9" && byID.details["root"] == .string("/srv/in/"))
        let decoded = try JSONValue.decode(GoogleDriveFetchDetails.self, from: JSONValue.object(byID.details).jsonText)
        #expect(decoded.pageSize == 1000 && decoded.export == nil && !decoded.isRecursive)
        #expect(GoogleDriveExportFormat.xlsx.mimeType(for: "application/vnd.google-apps.spreadsheet") != nil)
        #expect(GoogleDriveExportFormat.xlsx.mimeType(for: "application/vnd.google-apps.document") == nil)
        #expect(GoogleDriveExportFormat.offered(for: "application/vnd.google-apps.presentation") == [.pdf, .txt, .pptx, .odp])
        #expect(GoogleDriveExportFormat.pdf.fileName(for: "Plan") == "Plan.pdf" && GoogleDriveExportFormat.pdf.fileName(for: "a.PDF") == "a.PDF")
    }

    @Test("bad locations and misplaced options are refused, naming the field", arguments: [
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:Backup/"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:/a//b"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:/a/../b"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:/a\u{1}b"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:bad name:/a"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:id:abc"), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:/" + String(repeating: "k", count: 4100)), "to"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:/x", options: ["mode": .commandLine("replace")]), "mode"),
        (JobRequest(kind: .upload, source: "/a", to: "gdrive:me:/x", options: ["export": .commandLine("pdf")]), "export"),
        (JobRequest(kind: .fetch, source: "gdrive:me:id:a'b", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "gdrive:me:id:", to: "/in/"), "source"),
        (JobRequest(kind: .fetch, source: "gdrive:me:/x", to: "/in/", options: ["export": .commandLine("exe")]), "export"),
        (JobRequest(kind: .fetch, source: "gdrive:me:/x", to: "/in/", options: ["page_size": .json(.int(5000))]), "page_size"),
        (JobRequest(kind: .fetch, source: "gdrive:me:/x", to: "/in/", options: ["mode": .commandLine("add")]), "mode"),
    ])
    func refused(request: JobRequest, field: String) {
        #expect {
            try validate(request)
        } throws: { error in
            (error as? ValidationIssue)?.field == field
        }
    }

    @Test("the registry lists its options in the help")
    func help() {
        #expect(registry.optionsHelp.contains("Google Drive uploads (gdrive:ACCOUNT:/Backup/):"))
        #expect(registry.examples(for: .upload).contains("gdrive:ACCOUNT:/Backup/"))
        #expect(registry.help(forOption: "export").contains("Google Drive fetches"))
    }
}
