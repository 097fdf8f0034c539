import AsyncHTTPClient
import FerryTestSupport
import Foundation
import Logging
import NIOCore
import NIOSSL
import Testing
@testable import FerryDevServer

/// The official SDKs only speak HTTPS, so the dev server can terminate TLS itself.
@Suite("TLS")
struct TLSTests {
    /// A throwaway self-signed certificate for 127.0.0.1, made with the openssl command line tool.
    static func makeCertificate(in directory: String) async throws -> (certificate: String, key: String) {
        let certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let process = try await ChildProcess.run("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                             "-keyout", key, "-out", certificate])
        guard process.status == 0 else { throw DevServerError("openssl failed") }
        return (certificate, key)
    }

    @Test("with a certificate and key the port speaks HTTPS only", .tags(.process))
    func https() async throws {
        let directory = DevServerHarness.temporaryStorage()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, key) = try await Self.makeCertificate(in: directory)
        var configuration = DevServerConfiguration(storageDirectory: directory + "/storage", appKey: "tls-app")
        configuration.tlsCertificateFile = certificate
        configuration.tlsKeyFile = key
        var logger = Logger(label: "ferry.dev-server.tls-test")
        logger.logLevel = .critical
        let server = try DevServer(configuration: configuration, logger: logger)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilRunning()
        #expect(server.baseURL == "https://127.0.0.1:\(port)")

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate)
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(tlsConfiguration: tls))
        let plain = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            let health = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(port)/__dev/health"), timeout: .seconds(300))
            #expect(health.status == .ok)
            var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)/2/users/get_current_account")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer " + server.issueAccessToken(account: "tls"))
            let account = try await client.execute(request, timeout: .seconds(300))
            #expect(account.status == .ok)
            // Plain HTTP to the same port gets no HTTP answer.
            await #expect(throws: (any Error).self) {
                _ = try await plain.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/__dev/health"), timeout: .seconds(10))
            }
        } catch {
            Issue.record("HTTPS request failed: \(error)")
        }
        try? await client.shutdown()
        try? await plain.shutdown()
    }

    @Test("a certificate without a key, or a file that is no certificate, fails at creation", .tags(.fast))
    func badConfiguration() throws {
        let directory = DevServerHarness.temporaryStorage()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notPEM = directory + "/not.pem"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notPEM))
        var configuration = DevServerConfiguration(storageDirectory: directory + "/storage", appKey: "tls-app")
        configuration.tlsCertificateFile = notPEM
        #expect(throws: DevServerError.self) { try DevServer(configuration: configuration) }
        configuration.tlsKeyFile = notPEM
        #expect(throws: DevServerError.self) { try DevServer(configuration: configuration) }
    }
}
