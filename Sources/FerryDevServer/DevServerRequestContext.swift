import Hummingbird
import NIOCore

/// Request context that keeps the connection's channel, so a fault can close the TCP
/// connection without any HTTP response.
struct DevServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
