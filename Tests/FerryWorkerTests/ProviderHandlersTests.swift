import FerryCore
import FerryProviders
import FerryTestSupport
import FerryWorker
import Testing

@Suite("the worker side of the providers", .tags(.fast))
struct ProviderHandlersTests {
    @Test("every standard descriptor has a worker side, found through the registry")
    func everyDescriptorHasHandlers() {
        for provider in ProviderRegistry.standard.providers {
            #expect(provider is any ProviderHandlers, "\(provider.name) has no ProviderHandlers conformance in FerryWorker")
        }
    }

    @Test("the registry knows which providers have accounts")
    func accountProviders() {
        #expect(ProviderRegistry.standard.accountProviderNames == ["dropbox", "flickr", "s3", "gdrive", "onedrive", "instagram"])
        #expect(ProviderRegistry.standard.accountKind(of: "web") == nil)
        #expect(ProviderRegistry.standard.accountKind(of: "s3") != nil)
    }
}
