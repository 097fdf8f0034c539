import Foundation

extension JobFailure {
    /// The remote side asked to slow down: the job waits what it asked (`retryAfter`, at least a second; 5 s when it
    /// did not say), without using an attempt. `message` is told the wait in whole seconds.
    static func slowDown(retryAfter: Double?, _ message: (_ seconds: Int) -> String) -> JobFailure {
        let wait = max(1, retryAfter ?? 5)
        return .rateLimited(until: Date().addingTimeInterval(wait), message(Int(wait.rounded(.up))))
    }
}
