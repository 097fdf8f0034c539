import AsyncHTTPClient
import FerryDevServer
import FerryFlickr
import FerryTestSupport
import Foundation
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `FlickrClient` against an in-process dev server (real HTTP over loopback).
@Suite("Flickr client", .tags(.fast))
struct FlickrClientTests {
    static let key = "ferry-dev-flickr"

    /// Runs `body` with a started dev server and a client pointed at it.
    static func withServer(_ body: (DevServer, FlickrClient) async throws -> Void) async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-flickr-\(UUID().uuidString)").path
        var serverLogger = Logger(label: "ferry.flickr-test.dev-server")
        serverLogger.logLevel = .critical
        let server = try DevServer(configuration: DevServerConfiguration(storageDirectory: storage, appKey: "ferry-dev"), logger: serverLogger)
        let task = Task { try await server.run() }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let base = "http://127.0.0.1:\(port)"
            let client = FlickrClient(
                httpClient: http, endpoints: FlickrEndpoints(rest: base + "/services/rest/", photos: base + "/flickr/photos"),
                logger: Logger(label: "ferry.flickr-test"))
            try await body(server, client)
        } catch {
            failure = error
        }
        try? await http.shutdown()
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: storage)
        if let failure { throw failure }
    }

    @Test("pages through a stream with total as a string: every photo once, in order, with extras")
    func pagingTotalAsString() async throws {
        try await Self.withServer { server, client in
            let seeded = try server.seedFlickrUser(userID: "12345678@N01", count: 250, totalAsString: true)
            var photos = [FlickrPhotoInfo]()
            for number in 1...3 {
                let page = try await client.publicPhotos(userID: "12345678@N01", page: number, perPage: 100, apiKey: Self.key)
                #expect(page.page == number)
                #expect(page.pages == 3)
                #expect(page.perPage == 100)
                #expect(page.total == 250)
                photos += page.photos
            }
            #expect(photos.map(\.id) == seeded.map(\.id))
            #expect(photos.map(\.title) == seeded.map(\.title))
            #expect(photos.allSatisfy { $0.ownerName == "12345678@N01" && $0.dateUpload != nil })
            #expect(photos.first?.dateUpload == seeded.first?.uploaded)
            let past = try await client.publicPhotos(userID: "12345678@N01", page: 4, perPage: 100, apiKey: Self.key)
            #expect(past.photos.isEmpty)
        }
    }

    @Test("total as a number parses too")
    func totalAsNumber() async throws {
        try await Self.withServer { server, client in
            try server.seedFlickrUser(userID: "99@N02", count: 7, totalAsString: false)
            let page = try await client.publicPhotos(userID: "99@N02", page: 1, perPage: 5, apiKey: Self.key)
            #expect(page.total == 7)
            #expect(page.pages == 2)
            #expect(page.photos.count == 5)
        }
    }

    @Test("photo URLs point at the served JPEGs, medium by default and with a size suffix")
    func photoURLs() async throws {
        try await Self.withServer { server, client in
            let seeded = try server.seedFlickrUser(userID: "5@N05", count: 1)
            let page = try await client.publicPhotos(userID: "5@N05", page: 1, perPage: 10, apiKey: Self.key)
            let photo = try #require(page.photos.first)
            let plain = client.photoURL(photo, size: nil)
            #expect(plain.hasSuffix(seeded[0].path()))
            let square = client.photoURL(photo, size: "s")
            #expect(square.hasSuffix("_s.jpg"))
            for url in [plain, square] {
                let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(data.prefix(2) == Data([0xFF, 0xD8]), "a JPEG")
            }
        }
    }

    @Test("a wrong API key is stat: fail code 100, and the key is not in the error")
    func badKey() async throws {
        try await Self.withServer { server, client in
            try server.seedFlickrUser(userID: "1@N01", count: 3)
            let secret = "0123456789abcdef0123456789abcdef"
            let error = try await #require(throws: FlickrError.self) {
                _ = try await client.publicPhotos(userID: "1@N01", page: 1, perPage: 10, apiKey: secret)
            }
            #expect(error.code == .invalidAPIKey)
            #expect(error.flickrCode == 100)
            #expect(error.message.contains("Invalid API Key"))
            #expect(!error.isRetryable)
            #expect(!error.description.contains(secret))
        }
    }

    @Test("an unknown user is stat: fail code 1")
    func unknownUser() async throws {
        try await Self.withServer { _, client in
            let error = try await #require(throws: FlickrError.self) {
                _ = try await client.publicPhotos(userID: "nobody@N00", page: 1, perPage: 10, apiKey: Self.key)
            }
            #expect(error.code == .userNotFound)
            #expect(error.flickrCode == 1)
            #expect(error.message == "User not found")
        }
    }

    @Test("a dead endpoint is a retryable transport error")
    func transport() async throws {
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let client = FlickrClient(
            httpClient: http, endpoints: FlickrEndpoints(rest: "http://127.0.0.1:1/services/rest/", photos: "http://127.0.0.1:1"),
            logger: Logger(label: "test"))
        let caught = await #expect(throws: FlickrError.self) {
            _ = try await client.publicPhotos(userID: "1@N01", page: 1, perPage: 10, apiKey: "secret-key-value")
        }
        try? await http.shutdown()
        let error = try #require(caught)
        #expect(error.code == .transport || error.code == .timeout)
        #expect(error.isRetryable)
        #expect(!error.description.contains("secret-key-value"))
    }
}
