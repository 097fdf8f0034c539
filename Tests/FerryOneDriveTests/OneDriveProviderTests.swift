import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

/// The descriptor: `onedrive:ACCOUNT:/path` and `onedrive:ACCOUNT:id:ITEMID`, hostile paths refused at enqueue,
/// options typed into the job's details.
@Suite(.tags(.fast))
struct OneDriveProviderTests {
    static let registry = ProviderRegistry.standard

    func validated(_ kind: JobKind, source: String, to destination: String, options: [String: OptionValue] = [:]) throws -> JobSpec {
        try JobRequest(kind: kind, source: source, to: destination, options: options).validated(
            jobID: UUID(), now: Date(), currentDirectory: "/tmp",
            inspectFile: { _ in .success(SourceFileFacts(size: 10, modifiedNanoseconds: 1, device: 1, inode: 2)) }, providers: Self.registry)
    }

    @Test("an upload to a folder names the file in it; the mode is typed into the details")
    func upload() throws {
        let spec = try validated(.upload, source: "/tmp/a b.jpg", to: "onedrive:me:/Photos/", options: ["mode": .commandLine("rename")])
        #expect(spec.destination == "onedrive:me:/Photos/a b.jpg")
        #expect(spec.account == "me")
        #expect(spec.details["mode"] == .string("rename"))
        #expect(throws: ValidationIssue.self) { try validated(.upload, source: "/tmp/a.jpg", to: "onedrive:me:id:ABC!12") }
        #expect(throws: ValidationIssue.self) {
            try validated(.upload, source: "/tmp/a.jpg", to: "onedrive:me:/x/", options: ["mode": .commandLine("clobber")])
        }
    }

    @Test("fetches take a path or an id, and fan out")
    func fetch() throws {
        let byPath = try validated(.fetch, source: "onedrive:me:/Photos/", to: "/tmp/out/", options: ["recursive": .json(.bool(true))])
        #expect(byPath.source == "onedrive:me:/Photos/")
        let byID = try validated(.fetch, source: "onedrive:me:id:D4648F06C91D9D3D!54927", to: "/tmp/out/")
        #expect(byID.source == "onedrive:me:id:D4648F06C91D9D3D!54927")
    }

    @Test("hostile locations are refused: .., ., //, control characters, names OneDrive forbids, huge names and paths, bad ids")
    func hostile() {
        let refused = [
            "onedrive:me:/a/../b", "onedrive:me:/./b", "onedrive:me:/a//b", "onedrive:me:/a\u{1B}[2J/b", "onedrive:me:/a\nb",
            "onedrive:me:/a:b/", "onedrive:me:/what?/", "onedrive:me:/a\\b", "onedrive:me:/" + String(repeating: "n", count: 256),
            "onedrive:me:/" + String(repeating: "abc/", count: 300), "onedrive:me:relative/path", "onedrive:me:id:../../etc",
            "onedrive:me:id:", "onedrive:bad name:/x", "onedrive:me",
        ]
        for remote in refused {
            #expect(throws: ValidationIssue.self, "\(remote.debugDescription)") { try validated(.fetch, source: remote, to: "/tmp/out/") }
        }
        // A local name OneDrive cannot hold is refused as the remote name it becomes.
        #expect(throws: ValidationIssue.self) { try validated(.upload, source: "/tmp/what?.jpg", to: "onedrive:me:/x/") }
    }

    @Test("the registry lists OneDrive with its options and an account kind name like its scheme")
    func registered() throws {
        let provider = try #require(Self.registry.provider(for: "onedrive:me:/x"))
        #expect(provider.name == "onedrive" && provider.schemes == ["onedrive"] && provider.pathsIgnoreCase)
        #expect(provider.options(for: .upload).map(\.name).contains("mode"))
        #expect(provider.options(for: .fetch).map(\.name).contains("page_size"))
    }
}
