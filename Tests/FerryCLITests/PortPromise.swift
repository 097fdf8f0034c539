import FerryTestSupport
import Synchronization

/// The port a server in process tells once it listens (it binds port 0), waited for as a condition.
final class PortPromise: Sendable {
    private let port = Mutex<Int?>(nil)

    func fulfil(_ value: Int) {
        port.withLock { $0 = value }
    }

    func value(timeout: Duration) async throws -> Int {
        var found: Int?
        try await eventually(timeout: timeout, interval: .milliseconds(20), "the server to listen") {
            found = self.port.withLock { $0 }
            return found != nil
        }
        return found!
    }
}
