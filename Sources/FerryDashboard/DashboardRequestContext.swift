import Hummingbird
import NIOCore

/// The dashboard's request context: Hummingbird's basics plus the client's address, which wrong tokens are
/// throttled by.
struct DashboardRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address (behind a reverse proxy, the proxy's).
    let remoteAddress: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }
}
