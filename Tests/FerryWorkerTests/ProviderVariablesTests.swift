import Testing

@testable import FerryWorker

/// Providers are handed the environment for their tuning knobs; it holds the secret key and database URLs too, so
/// however the handed copy is printed, no value shows.
@Suite("provider variables", .tags(.fast))
struct ProviderVariablesTests {
    @Test("a value is read by name, and never shown by a description, a debug description or a dump")
    func neverShown() {
        let secret = "s3cr3t-key-0123456789abcdef"
        let variables = ProviderVariables(["FERRY_SECRET_KEY": secret, "FERRY_DROPBOX_BATCH_MAX": "7"])
        #expect(variables["FERRY_DROPBOX_BATCH_MAX"] == "7" && variables["FERRY_SECRET_KEY"] == secret)
        #expect(variables["MISSING"] == nil)
        var dumped = ""
        dump(variables, to: &dumped)
        for text in [String(describing: variables), String(reflecting: variables), "\(variables)", dumped] {
            #expect(!text.contains(secret) && !text.contains("FERRY_SECRET_KEY"), "\(text)")
        }
        #expect(DropboxBatchSettings(environment: variables)?.maxEntries == 7, "a knob is read through it")
    }
}
