import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

@Suite("Instagram endpoints and options", .tags(.fast))
struct InstagramProviderTests {
    let registry = ProviderRegistry([InstagramProvider()])

    func validate(_ request: JobRequest) throws(ValidationIssue) -> JobSpec {
        try request.validated(jobID: UUID(), now: Date(), currentDirectory: "/", inspectFile: { _ in .failure(.missing) }, providers: registry)
    }

    @Test("a feed fetch names its account, fans out into a folder and keeps typed options")
    func feed() throws {
        let spec = try validate(JobRequest(
            kind: .fetch, source: "instagram:me", to: "/pictures/ig", options: ["max": .commandLine("10"), "thumbnails": .commandLine("true")]))
        #expect(spec.source == "instagram:me")
        #expect(spec.destination == "/pictures/ig/")
        #expect(spec.account == "me" && spec.accountProvider == "instagram")
        #expect(spec.details["max"] == .int(10))
        #expect(spec.details["thumbnails"] == .bool(true))
    }

    @Test("account names that are not names are refused", arguments: ["instagram:", "instagram:../x", "instagram:a/b", "instagram:a b"])
    func badAccounts(_ source: String) {
        #expect(throws: ValidationIssue.self) { try validate(JobRequest(kind: .fetch, source: source, to: "/tmp/ig/")) }
    }

    @Test("only decimal ids are media ids: path tricks and control characters are not")
    func mediaIDs() {
        #expect(InstagramMediaReference.isValidID("17841400000000100"))
        for hostile in ["", "../../escape", "1/2", "12\u{1B}[31m34", "１２", String(repeating: "9", count: 41), "1.jpg"] {
            #expect(!InstagramMediaReference.isValidID(hostile), "\(hostile.debugDescription)")
        }
        #expect(InstagramMediaReference.source(account: "me", id: "42", thumbnail: true) == "instagram:me/media/42/thumbnail")
    }
}
