import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryS3

@Suite("Secrets never leak")
struct SecretTests {
    static let secret = "S3CRET-access-key/with+chars=="
    static let token = "SESSION-token-FwoGZXIvYXdzEBYaDH+/abc=="

    /// Every way a value can be turned into text.
    private func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped, "\(value)"]
    }

    @Test("credentials and signatures hide their secrets in every rendering", .tags(.fast))
    func renderingsHideSecrets() {
        let credentials = S3Credentials(accessKeyID: "AKIAVISIBLE", secretAccessKey: Self.secret, sessionToken: Self.token)
        for text in renderings(credentials) {
            #expect(!text.contains(Self.secret))
            #expect(!text.contains(Self.token))
            #expect(text.contains("AKIAVISIBLE"))
        }
        let signed = SigV4Signer(credentials: credentials, region: "us-east-1")
            .sign(method: "GET", path: "/b/k", query: [], headers: [("host", "h")], payloadHash: SigV4Signer.unsignedPayload, date: Date())
        #expect(signed.canonicalRequest.contains(Self.token))  // signed, as S3 requires
        for text in renderings(signed) {
            #expect(!text.contains(Self.token))
            #expect(!text.contains(signed.signature))
            #expect(!text.contains("Signature="))
        }
    }

    @Test("logs and errors of real calls never contain the secret key, session token, Authorization or signatures", .tags(.s3))
    func realCalls() async throws {
        let recorder = LogRecorder()
        let client = try TestData.client(
            credentials: S3Credentials(accessKeyID: "ASIAFERRYTEST", secretAccessKey: Self.secret, sessionToken: Self.token),
            logger: recorder.logger(label: "s3-secrets"))
        let bucket = try await TestData.bucket(client, "secrets")
        _ = try await client.putObject(bucket: bucket, key: "k", body: .bytes(ByteBuffer(string: "x")))
        _ = try await TestData.read(try await client.getObject(bucket: bucket, key: "k"))
        var errors: [S3Error] = []
        do { _ = try await client.getObject(bucket: bucket, key: "missing") } catch { errors.append(error) }
        do { _ = try await client.headObject(bucket: bucket, key: "missing") } catch { errors.append(error) }
        do { _ = try await client.listParts(bucket: bucket, key: "k", uploadID: "nope") } catch { errors.append(error) }
        #expect(errors.count == 3)
        #expect(!recorder.all.isEmpty)
        let texts = recorder.all + errors.flatMap { renderings($0) }
        for text in texts {
            #expect(!text.contains(Self.secret), "\(text)")
            #expect(!text.contains(Self.token), "\(text)")
            #expect(!text.contains("AWS4-HMAC-SHA256"), "\(text)")
            #expect(!text.contains("Signature="), "\(text)")
            #expect(!text.contains("X-Amz-Signature"), "\(text)")
        }
    }

    @Test("a transport failure is described without request content", .tags(.fast))
    func transport() async throws {
        let configuration = S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: "http://127.0.0.1:1"))
        let client = S3Client(
            httpClient: .shared, configuration: configuration,
            credentials: S3Credentials(accessKeyID: "AKIA", secretAccessKey: Self.secret, sessionToken: Self.token),
            logger: LogRecorder().logger(label: "t"), requestTimeout: .seconds(2))
        do {
            _ = try await client.getObject(bucket: "b", key: "k")
            Issue.record("port 1 answered")
        } catch {
            #expect(error.code == .transport || error.code == .timeout)
            #expect(error.disposition == .retryable)
            for text in renderings(error) {
                #expect(!text.contains(Self.secret))
                #expect(!text.contains(Self.token))
            }
        }
    }
}
