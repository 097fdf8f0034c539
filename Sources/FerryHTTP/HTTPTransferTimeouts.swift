import AsyncHTTPClient
import NIOCore

/// The timeouts of the HTTP client that provider transfers share (the worker's, and the CLI's listings).
///
/// A transfer is bounded by silence, not by its length: a large file outgrows any whole-request deadline, while a
/// peer that stops sending (or stops reading) mid-body would otherwise hold the piece until the kernel gives up on
/// the connection, about 15 minutes. AsyncHTTPClient's `read` timeout is such an idle bound: it starts once the
/// request is sent and restarts at every part of the response that arrives (head or body bytes), so it cuts a
/// download that stalls but never one that is merely long. Its `write` timeout is the same for the request body,
/// but only while the socket can take more: AsyncHTTPClient pauses it while the socket is full, so an upload whose
/// peer stops reading in the middle of a chunk larger than the socket buffers waits for the request's own deadline
/// (a chunk that fits is sent whole, and the `read` timeout then bounds the silent answer). Either surfaces
/// as `HTTPClientError.readTimeout` or `.writeTimeout`, which every provider client maps to a temporary failure:
/// the piece is retried, the job is not failed for good.
public enum HTTPTransferTimeouts {
    /// How long a transfer may go without a byte in either direction when the worker sets nothing else.
    public static let defaultIdle: Duration = .seconds(60)
    /// How long a new connection may take (TCP and TLS).
    public static let connect: Duration = .seconds(10)

    /// A client configuration that follows no redirects (each client decides that itself) and fails a transfer
    /// after `idle` without a byte read or written.
    ///
    /// A refused or failed connection fails the request at once rather than being retried by the client until
    /// the connect timeout: a peer that refuses answers in a millisecond, and the job's own retry (with its
    /// backoff and its message naming the refusal) is the one place that decides when to try again. With the
    /// client's retries each refusal cost the whole 10 s connect timeout.
    public static func configuration(idle: Duration = defaultIdle) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: timeAmount(connect), read: timeAmount(idle), write: timeAmount(idle)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let parts = duration.components
        return .nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    }
}
